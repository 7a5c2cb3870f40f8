import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

@testable import Ledger

/// Three nights on one ledger (docs/store-events.md): night one credits and is screened; night two
/// brings new orders and the stores' word on both nights' orders; night three brings a
/// reversal and a purchase refunded on night two credited again. SQLite here; both
/// backends side by side in PostgresLedgerScreenTests.
struct ThreeNights {
    static let bundle = StoreEventFixtures.bundle
    let scratch: Scratch
    let pki: TestPKI
    let forger: TestPKI

    static func t(_ s: String) -> Timestamp { StoreEventFixtures.t(s) }

    init() throws {
        scratch = try Scratch()
        pki = try TestPKI()
        forger = try TestPKI()
        let rules = URL(fileURLWithPath: scratch.file("Rules"))
        try pki.writeTrustDirectory(into: rules, googlePackageNames: [Self.bundle])
        try scratch.write(
            "Rules/catalog.csv",
            """
            item_id,platform,product_id,type,price,currency
            gems,ios,com.x.gems,consumable,4.99,USD
            gems,android,gems_100,consumable,1.99,EUR
            vip,android,vip_month,auto_renewable,9.99,EUR

            """)
        try scratch.write("Rules/apps.csv", "platform,app_id\nios,\(Self.bundle)\nandroid,\(Self.bundle)\n")

        // Night one: A, C, F and G credited; no events.
        try write(
            "night1.jsonl",
            [
                try apple("A", txn: "1001", at: "2024-03-01T10:00:00Z"),
                try google("C", orderID: "GPA.1", token: "tok-c", item: "gems", at: "2024-03-01T10:00:00Z"),
                try google("F", orderID: "GPA.6", token: "tok-f", item: "vip", at: "2024-03-01T11:00:00Z"),
                try apple("G", txn: "1007", at: "2024-03-01T12:00:00Z"),
            ])
        // Night two: H credited (refunded later tonight), D already marked refunded; events for
        // both nights' orders, a duplicate, a forgery and a refund of a purchase nobody credited.
        try write(
            "night2.jsonl",
            [
                try apple("H", txn: "1008", at: "2024-03-05T10:00:00Z"),
                try apple("D", txn: "1004", at: "2024-03-05T10:00:00Z", status: "refunded"),
            ])
        try scratch.write(
            "events2.jsonl",
            [
                try notification("REFUND", uuid: "n-a", txn: "1001", at: "2024-03-04T00:00:00Z"),
                #"{"purchaseToken":"tok-c","orderId":"GPA.1","voidedTimeMillis":"1709337600000","voidedSource":0,"voidedReason":6}"#,
                // A revoked subscription names only its token, which the ledger keeps with F's claim.
                #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709337600000","subscriptionNotification":{"version":"1.0","notificationType":12,"purchaseToken":"tok-f","subscriptionId":"vip_month"}}"#,
                try notification("REFUND", uuid: "n-h", txn: "1008", at: "2024-03-06T00:00:00Z"),
                "{\"signedPayload\":\"\(try notification("REFUND", uuid: "n-a", txn: "1001", at: "2024-03-04T00:00:00Z"))\"}",
                try notification("REFUND", uuid: "n-g", txn: "1007", at: "2024-03-04T00:00:00Z", signer: forger),
                try notification("REFUND", uuid: "n-d", txn: "1004", at: "2024-03-06T00:00:00Z"),
                try notification("REFUND", uuid: "n-x", txn: "9999", at: "2024-03-03T00:00:00Z"),
            ].joined(separator: "\n") + "\n")
        // Night three: J credits 9999, refunded on 03-03; K is a clean order of A's user.
        try write(
            "night3.jsonl",
            [
                try apple("J", txn: "9999", at: "2024-03-10T10:00:00Z"),
                try apple("K", txn: "1011", at: "2024-03-10T11:00:00Z", user: "user-A"),
            ])
        try scratch.write(
            "events3.jsonl",
            [
                try notification("REFUND_REVERSED", uuid: "n-ra", txn: "1001", at: nil)
            ].joined(separator: "\n") + "\n")
    }

    /// A copy of the ledger an iapscreen before schema versions wrote (Tests/Fixtures/Ledger),
    /// as `name` in the scratch directory; returns its bytes.
    @discardableResult
    func oldLedger(_ name: String) throws -> Data {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Ledger/schema0-ledger.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: scratch.file(name))
        return try Data(contentsOf: URL(fileURLWithPath: scratch.file(name)))
    }

    func write(_ name: String, _ rows: [JSONObject]) throws {
        try scratch.write(name, rows.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")
    }

    func apple(_ id: String, txn: String, at: String, status: String = "credited", user: String? = nil) throws
        -> JSONObject
    {
        let bought = Self.t(at).adding(days: -1) ?? Self.t(at)
        let tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: Self.bundle, productID: "com.x.gems",
            type: "Consumable", purchaseDate: bought, signedDate: bought)
        return row(
            id, user: user, platform: "ios", item: "gems", txn: txn, amount: "4.99", currency: "USD", at: at,
            status: status, receipt: try JWSBuilder.transaction(tx, with: pki.jwsSigner))
    }

    func google(_ id: String, orderID: String, token: String, item: String, at: String) throws -> JSONObject {
        let product = item == "vip" ? "vip_month" : "gems_100"
        let data = GooglePurchaseBuilder.PurchaseData(
            orderID: orderID, packageName: Self.bundle, productID: product,
            purchaseTime: Self.t(at), purchaseToken: token, obfuscatedAccountID: nil)
        return row(
            id, user: nil, platform: "android", item: item, txn: orderID, amount: item == "vip" ? "9.99" : "1.99",
            currency: "EUR", at: at, status: "credited",
            receipt: try GooglePurchaseBuilder.payload(data, with: pki.googleSigner, wrapper: .dataAndSignature))
    }

    func row(
        _ id: String, user: String?, platform: String, item: String, txn: String, amount: String, currency: String,
        at: String, status: String, receipt: String
    ) -> JSONObject {
        StoreEventFixtures.row(
            id, user: user ?? "user-" + id, platform: platform, item: item, txn: txn, amount: amount,
            currency: currency, at: at, status: status, receipt: receipt)
    }

    /// A REFUND (with `at` its revocation date) or REFUND_REVERSED notification.
    func notification(_ type: String, uuid: String, txn: String, at: String?, signer: TestPKI? = nil) throws -> String {
        try StoreEventFixtures.notification(
            type, uuid: uuid, txn: txn, revoked: at, reason: 0,
            signedDate: "2024-03-08T00:00:00Z", signer: signer ?? pki)
    }

    struct Night {
        var run: ToolRun
        var findings: [FindingLine]
        var flagged: String
        var summary: JSONObject

        /// "order rule review-status" per finding, in file order.
        var said: [String] {
            findings.map { "\($0.orderID ?? "-") \($0.rule) \($0.review?["status"]?.string ?? "-")" }
        }
    }

    func screen(_ orders: String, events: String? = nil, out: String, ledger: String = "sqlite:ledger.sqlite") throws
        -> Night
    {
        var args = ["screen", "--rules", "Rules", "--orders", orders, "--out", out, "--ledger", ledger, "--quiet"]
        if let events { args += ["--store-events", events] }
        let run = try Tool.run(args, in: scratch.path)
        let findings = (try? FindingLine.read(scratch.file(out + "/findings.jsonl"))) ?? []
        let summary = (try? JSONParser.parse(try scratch.read(out + "/summary.json")).object) ?? JSONObject([])
        return Night(
            run: run, findings: findings, flagged: (try? scratch.read(out + "/flagged.csv")) ?? "", summary: summary)
    }
}

@Suite("Store events remembered across nights")
struct StoreEventLedgerTests {
    @Test(
        "night two flags refunds of night one's orders with their money from the ledger; night three flags a reversal of a reported refund and a refunded purchase credited again; reruns say the same"
    )
    func threeNights() throws {
        let w = try ThreeNights()
        let one = try w.screen("night1.jsonl", out: "out1")
        #expect(one.run.status == 0, "\(one.run.stderr)")
        #expect(one.findings.isEmpty)

        let two = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2")
        #expect(two.run.status == 0, "\(two.run.stderr)")
        // H is tonight's, in its place; night one's orders after tonight's, in event order.
        #expect(
            two.said == [
                "H refunded-after-credit new", "A refunded-after-credit new", "C refunded-after-credit new",
                "F refunded-after-credit new", "G store-event-invalid new",
            ])
        let a = try #require(two.findings.first { $0.orderID == "A" }?.object)
        #expect(a["user_id"] == .string("user-A"))
        let evidence = try #require(a["evidence"]?.object)
        #expect(
            evidence["transaction_id"] == .string("1001") && evidence["credited_at"] == .string("2024-03-01T10:00:00Z"))
        #expect(
            evidence["refunded_at"] == .string("2024-03-04T00:00:00.000Z") && evidence["reason"] == .string("other"))
        let f = try #require(two.findings.first { $0.orderID == "F" }?.object["evidence"]?.object)
        #expect(
            f["transaction_id"] == .string("GPA.6") && f["event"] == .string("rtdn-revoked"),
            "the token found F's claim in the ledger")
        // The ledger kept what night one's orders bought: flagged.csv and at_risk carry it.
        #expect(
            two.flagged.contains("\nA,user-A,ios,com.x.gems,4.99,USD,2024-03-01T10:00:00Z,high,refunded-after-credit,"))
        #expect(
            two.flagged.contains(
                "\nF,user-F,android,vip_month,9.99,EUR,2024-03-01T11:00:00Z,high,refunded-after-credit,"))
        #expect(two.summary["flagged"] == .integer(4), "H, A, C, F; the forgery flags nobody")
        #expect(two.summary["at_risk"] == .object(JSONObject([("EUR", .string("11.98")), ("USD", .string("9.98"))])))
        let events = try #require(two.summary["store_events"]?.object)
        #expect(
            events["read"] == .integer(8) && events["distinct"] == .integer(7), "the REFUND logged twice is one event")
        // D is marked refunded: it took nothing and raises nothing, but its refund is matched;
        // only the refund of 9999, which nobody credited, is unmatched.
        #expect(events["matched"] == .integer(5) && events["unmatched"] == .integer(1))
        #expect(!two.said.contains { $0.hasPrefix("D ") })
        // The ledger remembers the believed events and refunds; the forgery is neither.
        let ledger = try SQLiteLedger(path: w.scratch.file("ledger.sqlite"), readOnly: true)
        #expect(
            Set(try ledger.refunds(of: ["1001", "g:GPA.1", "g:GPA.6", "1008", "1004", "9999", "1007"]).keys)
                == ["1001", "g:GPA.1", "g:GPA.6", "1008", "1004", "9999"])
        #expect(try ledger.claimsWithDetails(of: ["g:GPA.6"])["g:GPA.6"]?.details.purchaseToken == "tok-f")
        // A rerun of a night gives the same findings, now seen.
        let twoAgain = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2b")
        #expect(twoAgain.said == two.said.map { $0.replacingOccurrences(of: " new", with: " seen") })

        let three = try w.screen("night3.jsonl", events: "events3.jsonl", out: "out3")
        #expect(three.run.status == 0, "\(three.run.stderr)")
        #expect(three.said == ["J revoked new", "A refund-reversed new"])
        let j = try #require(three.findings.first?.object)
        #expect(
            j["message"]?.string?.contains(
                "transaction 9999 on 2024-03-03T00:00:00.000Z (REFUND, remembered by the ledger)") == true)
        #expect(three.summary["flagged"] == .integer(2))

        let rerun = try w.screen("night3.jsonl", events: "events3.jsonl", out: "out3b")
        #expect(rerun.said == ["J revoked seen", "A refund-reversed seen"])
        // Night two's events once more, now that J took 9999: the refund before J's credit is revoked on J.
        let late = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2c")
        #expect(late.said.last == "J revoked seen")
    }

    @Test("a purchase the ledger remembers refunded, replayed on a later night, is replayed-transaction and revoked")
    func refundedReplayLater() throws {
        let w = try ThreeNights()
        _ = try w.screen("night1.jsonl", out: "out1")
        _ = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2")
        // A's 1001, refunded on 03-04 (night two's events), credited again by another user.
        try w.write("night4.jsonl", [try w.apple("R", txn: "1001", at: "2024-03-11T10:00:00Z")])
        let four = try w.screen("night4.jsonl", out: "out4")
        #expect(four.run.status == 0, "\(four.run.stderr)")
        #expect(four.said == ["R replayed-transaction new", "R revoked new"])
    }

    @Test("night two's refunds count in user.refunds on night three")
    func refundsAcrossNights() throws {
        let w = try ThreeNights()
        try w.scratch.write("Rules/refunds.rules", "flag medium serial-refunder if user.refunds >= 1\n")
        _ = try w.screen("night1.jsonl", out: "out1")
        _ = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2")
        let three = try w.screen("night3.jsonl", out: "out3")
        #expect(three.run.status == 0, "\(three.run.stderr)")
        // K is clean but its user was refunded on night two; J's own purchase was refunded.
        #expect(three.said.contains("K serial-refunder new"))
        #expect(three.said.contains("J revoked new"), "the ledger's memory needs no events tonight")
    }

    @Test("without the ledger nothing carries over: night two's refunds of night one's orders are unmatched")
    func noLedger() throws {
        let w = try ThreeNights()
        let two = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2", ledger: "none")
        #expect(two.said == ["H refunded-after-credit -", "- store-event-invalid -"])
        // H's and D's (marked refunded tonight) are matched; the ledger's orders are unknown.
        #expect(two.summary["store_events"]?.object?["matched"] == .integer(2))
        #expect(two.summary["store_events"]?.object?["unmatched"] == .integer(4))
    }

    @Test("explain reads the ledger without writing it: an old ledger is not migrated, a newer one is exit 2")
    func explainReadsOnly() throws {
        let w = try ThreeNights()
        let before = try w.oldLedger("old.sqlite")
        let explained = try Tool.run(
            [
                "explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl",
                "--ledger", "sqlite:old.sqlite",
            ], in: w.scratch.path)
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.scratch.file("old.sqlite"))) == before)

        _ = try w.screen("night1.jsonl", out: "out1", ledger: "sqlite:new.sqlite")
        let db = w.scratch.file("new.sqlite")
        try LedgerFile(path: db).execute("PRAGMA user_version = 9")
        let newer = try w.screen("night2.jsonl", out: "out2", ledger: "sqlite:new.sqlite")
        #expect(newer.run.status == 2)
        #expect(newer.run.stderr.contains("schema 9, this one reads up to 5"))
        let explainNewer = try Tool.run(
            [
                "explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl",
                "--ledger", "sqlite:new.sqlite",
            ], in: w.scratch.path)
        #expect(explainNewer.status == 2)
    }
}
