import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

/// A night of five orders and a store-event log about them, signed by a test PKI.
private struct RefundNight {
    static let bundle = StoreEventFixtures.bundle
    let scratch: Scratch
    let pki: TestPKI

    static func t(_ s: String) -> Timestamp { StoreEventFixtures.t(s) }

    init() throws {
        scratch = try Scratch()
        pki = try TestPKI()
        let rules = URL(fileURLWithPath: scratch.file("Rules"))
        try pki.writeTrustDirectory(into: rules, googlePackageNames: [Self.bundle])
        try scratch.write(
            "Rules/catalog.csv",
            """
            item_id,platform,product_id,type,price,currency
            gems,ios,com.x.gems,consumable,0.99,USD
            gems,android,gems_100,consumable,0.99,USD

            """)
        try scratch.write("Rules/apps.csv", "platform,app_id\nios,\(Self.bundle)\nandroid,\(Self.bundle)\n")
        let rows = [
            try order("A", txn: "1001", at: "2024-03-01T10:00:00Z"),
            try order("B", txn: "1002", at: "2024-03-05T10:00:00Z"),
            try googleOrder("C", orderID: "GPA.1", at: "2024-03-01T10:00:00Z"),
            try order("D", txn: "1004", at: "2024-03-01T10:00:00Z", status: "refunded"),
            try order("E", txn: "1005", at: "2024-03-01T10:00:00Z"),
            try googleOrder("F", orderID: "GPA.6", token: "tok-f", at: "2024-03-01T11:00:00Z"),
        ]
        try scratch.write("orders.jsonl", rows.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")
        let other = try TestPKI()
        let lines = [
            "{\"signedPayload\":\"\(try notification("REFUND", uuid: "n-a", txn: "1001", revoked: "2024-03-04T00:00:00Z"))\"}",
            try notification("REFUND", uuid: "n-a", txn: "1001", revoked: "2024-03-04T00:00:00Z"),
            try notification("REFUND", uuid: "n-b", txn: "1002", revoked: "2024-03-03T00:00:00Z"),
            #"{"purchaseToken":"tok-c","orderId":"GPA.1","voidedTimeMillis":"1709337600000","voidedSource":0,"voidedReason":6}"#,
            #"{"purchaseToken":"tok-z","orderId":"GPA.999","voidedTimeMillis":"1709337600000"}"#,
            try notification("REFUND_REVERSED", uuid: "n-e", txn: "1005", revoked: nil, signer: other),
            "not an event",
            try notification("REFUND", uuid: "n-d", txn: "1004", revoked: "2024-03-04T00:00:00Z"),
            // A revoked subscription names only its purchase token.
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709337600000","subscriptionNotification":{"version":"1.0","notificationType":12,"purchaseToken":"tok-f","subscriptionId":"gems_100"}}"#,
        ]
        try scratch.write("events.jsonl", lines.joined(separator: "\n") + "\n")
    }

    func order(_ id: String, txn: String, at: String, status: String = "credited") throws -> JSONObject {
        let bought = Self.t(at).adding(days: -1) ?? Self.t(at)
        let tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: Self.bundle, productID: "com.x.gems",
            type: "Consumable", purchaseDate: bought, signedDate: bought)
        return row(
            id, platform: "ios", txn: txn, at: at, status: status,
            receipt: try JWSBuilder.transaction(tx, with: pki.jwsSigner))
    }

    func googleOrder(_ id: String, orderID: String, token: String = "tok-c", at: String) throws -> JSONObject {
        let data = GooglePurchaseBuilder.PurchaseData(
            orderID: orderID, packageName: Self.bundle, productID: "gems_100",
            purchaseTime: Self.t(at), purchaseToken: token, obfuscatedAccountID: nil)
        return row(
            id, platform: "android", txn: orderID, at: at, status: "credited",
            receipt: try GooglePurchaseBuilder.payload(data, with: pki.googleSigner, wrapper: .dataAndSignature))
    }

    func row(_ id: String, platform: String, txn: String, at: String, status: String, receipt: String) -> JSONObject {
        StoreEventFixtures.row(
            id, user: "user-" + id, platform: platform, txn: txn, amount: "0.99", currency: "USD", at: at,
            status: status, receipt: receipt)
    }

    func notification(_ type: String, uuid: String, txn: String, revoked: String?, signer: TestPKI? = nil) throws
        -> String
    {
        try StoreEventFixtures.notification(
            type, uuid: uuid, txn: txn, revoked: revoked, reason: 1,
            signedDate: "2024-03-04T00:00:00Z", signer: signer ?? pki)
    }

    func screen() throws -> (run: ToolRun, findings: [FindingLine], summary: JSONObject) {
        let run = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--store-events", "events.jsonl",
                "--out", "out", "--ledger", "none", "--quiet", "--metrics", "iapscreen.prom",
            ], in: scratch.path)
        let findings = try FindingLine.read(scratch.file("out/findings.jsonl"))
        let summary = try #require(try JSONParser.parse(try scratch.read("out/summary.json")).object)
        return (run, findings, summary)
    }
}

@Suite("Screening with store events")
struct StoreEventScreenTests {
    @Test(
        "refunds after the credit are refunded-after-credit on their order, with evidence; a refund before it is revoked; forged and unreadable events are findings of their own; counts in summary.json"
    )
    func oneNight() throws {
        let night = try RefundNight()
        let (run, findings, summary) = try night.screen()
        #expect(run.status == 0, "\(run.stderr)")
        let byOrder = findings.map { "\($0.orderID ?? "-") \($0.rule)" }
        #expect(
            byOrder == [
                "A refunded-after-credit", "B revoked", "C refunded-after-credit", "F refunded-after-credit",
                "E store-event-invalid", "- malformed-record",
            ])
        #expect(findings[3].object["evidence"]?.object?["event"] == .string("rtdn-revoked"))
        #expect(
            findings[3].object["evidence"]?.object?["transaction_id"] == .string("GPA.6"),
            "the token resolved to its purchase's order id")
        let a = try #require(findings.first?.object["evidence"]?.object)
        #expect(a["transaction_id"] == .string("1001") && a["event"] == .string("REFUND"))
        #expect(
            a["refunded_at"] == .string("2024-03-04T00:00:00.000Z")
                && a["credited_at"] == .string("2024-03-01T10:00:00Z"))
        #expect(a["reason"] == .string("app-issue") && a["source"] == .null)
        let c = try #require(findings[2].object["evidence"]?.object)
        #expect(
            c["event"] == .string("voided") && c["reason"] == .string("friendly-fraud")
                && c["source"] == .string("user"))
        let e = try #require(findings[4].object["evidence"]?.object)
        #expect(e["file"] == .string("events.jsonl") && e["line"] == .integer(6))
        #expect(e["reason"]?.string?.hasPrefix("the signature does not verify") == true)
        #expect(findings[4].object["user_id"] == .string("user-E"))
        let m = try #require(findings[5].object["evidence"]?.object)
        #expect(m["line"] == .integer(7))

        let events = try #require(summary["store_events"]?.object)
        #expect(events["read"] == .integer(8) && events["distinct"] == .integer(7))
        #expect(
            events["by_type"]
                == .object(
                    JSONObject([
                        ("REFUND", .integer(3)), ("REFUND_REVERSED", .integer(1)),
                        ("rtdn-revoked", .integer(1)), ("voided", .integer(2)),
                    ])))
        #expect(
            events["refunds"] == .integer(6) && events["reversals"] == .integer(0) && events["invalid"] == .integer(1))
        // D's refund is matched: tonight's dump marks D refunded already (no finding).
        #expect(events["matched"] == .integer(5) && events["unmatched"] == .integer(1))
        #expect(summary["flagged"] == .integer(4), "a forged event flags no order: it changes nothing")
        let page = try night.scratch.read("out/report.html")
        let start = try #require(page.range(of: "<section id=\"store-events\">"))
        let section = String(page[start.lowerBound...].prefix(20_000))
        #expect(
            section.contains(
                "8 read, 7 distinct; 6 refunds and 0 reversals, 5 of them matched to an order and 1 unmatched; 1 not believed"
            ))
        #expect(section.contains("<tr><td>rtdn-revoked</td><td class=\"n\">1</td></tr>"))
        #expect(
            section.contains(
                "<li><span>2024-03-04</span> <b>2</b></li><li><span>2024-03-03</span> <b>1</b></li><li><span>2024-03-02</span> <b>3</b></li>"
            ))
        let metrics = try night.scratch.read("iapscreen.prom")
        #expect(metrics.contains("iapscreen_store_events{type=\"REFUND\"} 3\n"))
        #expect(metrics.contains("iapscreen_store_events{type=\"rtdn-revoked\"} 1\n"))
        let inputs = try #require(summary["inputs"]?.array)
        #expect(
            inputs.last?.object?["path"] == .string("events.jsonl") && inputs.last?.object?["records"] == .integer(8))
    }

    @Test(
        "an order that replays a refunded purchase after its refund carries both replayed-transaction and revoked; one before the refund only the replay"
    )
    func refundedReplay() throws {
        let night = try RefundNight()
        let extra = [
            // A's transaction 1001 (refunded 03-04) credited again after the refund, and before it.
            try night.order("G", txn: "1001", at: "2024-03-05T10:00:00Z"),
            try night.order("H", txn: "1001", at: "2024-03-02T10:00:00Z"),
        ]
        let orders = try night.scratch.read("orders.jsonl")
        try night.scratch.write(
            "orders.jsonl", orders + extra.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")
        let (run, findings, _) = try night.screen()
        #expect(run.status == 0, "\(run.stderr)")
        func rules(_ order: String) -> [String] { findings.filter { $0.orderID == order }.map(\.rule) }
        #expect(rules("A") == ["refunded-after-credit"])
        #expect(rules("G") == ["replayed-transaction", "revoked"])
        #expect(rules("H") == ["replayed-transaction"])
        let g = try #require(findings.first { $0.orderID == "G" && $0.rule == "revoked" }?.object["evidence"]?.object)
        #expect(g["transaction_id"] == .string("1001") && g["refunded_at"] == .string("2024-03-04T00:00:00.000Z"))
    }

    @Test("the summary on stderr counts the store events")
    func stderrSummary() throws {
        let night = try RefundNight()
        let run = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--store-events", "events.jsonl",
                "--out", "out", "--ledger", "none",
            ], in: night.scratch.path)
        #expect(run.status == 0)
        #expect(
            run.stderr.contains(
                "store events: 8 read (7 distinct), 6 refunds, 0 reversals, 5 matched, 1 unmatched, 1 not believed"))
    }

    @Test("explain lists the store events of the order's transaction and their findings")
    func explain() throws {
        let night = try RefundNight()
        func explain(_ order: String) throws -> String {
            let r = try Tool.run(
                [
                    "explain", "--order", order, "--rules", "Rules", "--orders", "orders.jsonl",
                    "--store-events", "events.jsonl", "--ledger", "none",
                ], in: night.scratch.path)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout
        }
        let a = try explain("A")
        #expect(
            a.contains(
                "store events of its transaction:\n  REFUND at 2024-03-04T00:00:00.000Z (events.jsonl:1): refund, reason app-issue"
            ))
        #expect(!a.contains("events.jsonl:2"), "the same notification logged twice is one event")
        #expect(
            a.contains(
                "verdict: flagged, highest severity high:\n  high refunded-after-credit: the store refunded transaction 1001"
            ))
        let e = try explain("E")
        #expect(e.contains("  REFUND_REVERSED (events.jsonl:6): not believed: the signature does not verify"))
        let f = try explain("F")
        #expect(f.contains("  rtdn-revoked at 2024-03-02T00:00:00.000Z (events.jsonl:9): refund"))
        let none = try Tool.run(
            ["explain", "--order", "A", "--rules", "Rules", "--orders", "orders.jsonl", "--ledger", "none"],
            in: night.scratch.path)
        #expect(!none.stdout.contains("store events"), "without --store-events explain says nothing of them")
    }

    @Test("custom rules may ask user.refunds and event.reason: judged once the events are")
    func customRules() throws {
        let night = try RefundNight()
        try night.scratch.write(
            "Rules/refunds.rules",
            """
            flag medium serial-refunder if user.refunds >= 1 and order.platform = "ios"
            flag high friendly-fraud-refund if event.reason = "friendly-fraud"

            """)
        let (run, findings, _) = try night.screen()
        #expect(run.status == 0, "\(run.stderr)")
        let custom = findings.filter { $0.rule == "serial-refunder" || $0.rule == "friendly-fraud-refund" }
            .map { "\($0.orderID ?? "-") \($0.rule)" }
        #expect(custom == ["A serial-refunder", "B serial-refunder", "C friendly-fraud-refund"])
        let c = try #require(findings.first { $0.rule == "friendly-fraud-refund" }?.object["evidence"]?.object)
        #expect(c["event.reason"] == .string("friendly-fraud"))
    }

    @Test("a forgery logged first under a genuine event's identity does not make the genuine one a duplicate")
    func forgeryFirst() throws {
        let night = try RefundNight()
        let forger = try TestPKI()
        try night.scratch.write(
            "events.jsonl",
            [
                try night.notification("REFUND_REVERSED", uuid: "n-a", txn: "1001", revoked: nil, signer: forger),
                try night.notification("REFUND", uuid: "n-a", txn: "1001", revoked: "2024-03-04T00:00:00Z"),
            ].joined(separator: "\n") + "\n")
        let (_, findings, summary) = try night.screen()
        #expect(
            findings.map { "\($0.orderID ?? "-") \($0.rule)" } == ["A refunded-after-credit", "A store-event-invalid"])
        #expect(summary["store_events"]?.object?["refunds"] == .integer(1))
    }

    @Test(
        "a store-event log that breaks off is exit 3 naming it, read beside the orders or not: no report, the ledger as it was"
    )
    func brokenLog() throws {
        let night = try RefundNight()
        let gz = try Tool.runProgram("/bin/gzip", ["-k", "-f", "events.jsonl"], in: night.scratch.path)
        #expect(gz.status == 0, "\(gz.stderr)")
        let whole = try Data(contentsOf: URL(fileURLWithPath: night.scratch.file("events.jsonl.gz")))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: night.scratch.file("broken.jsonl.gz")))
        func screen(_ events: String, out: String) throws -> ToolRun {
            try Tool.run(
                [
                    "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--store-events", events, "--out", out,
                    "--ledger", "sqlite:ledger.sqlite", "--quiet",
                ], in: night.scratch.path)
        }
        #expect(try screen("events.jsonl.gz", out: "out-good").status == 0)
        let ledger = URL(fileURLWithPath: night.scratch.file("ledger.sqlite"))
        let before = try Data(contentsOf: ledger)
        let broken = try screen("broken.jsonl.gz", out: "out-broken")
        #expect(broken.status == 3)
        #expect(
            broken.stderr.contains("cannot read broken.jsonl.gz") && broken.stderr.contains("ledger unchanged"),
            "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: night.scratch.file("out-broken/findings.jsonl")))
        #expect(try Data(contentsOf: ledger) == before)
        // The orders failing while the events are still being read: the orders' error, exit 3.
        #expect(try Tool.runProgram("/bin/gzip", ["-k", "-f", "orders.jsonl"], in: night.scratch.path).status == 0)
        let orderBytes = try Data(contentsOf: URL(fileURLWithPath: night.scratch.file("orders.jsonl.gz")))
        try orderBytes.prefix(orderBytes.count / 2).write(
            to: URL(fileURLWithPath: night.scratch.file("bad-orders.jsonl.gz")))
        let orders = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "bad-orders.jsonl.gz", "--store-events", "events.jsonl.gz",
                "--out", "out-orders", "--ledger", "none", "--quiet",
            ], in: night.scratch.path)
        #expect(orders.status == 3)
        #expect(orders.stderr.contains("bad-orders.jsonl.gz"), "\(orders.stderr)")
    }
}
