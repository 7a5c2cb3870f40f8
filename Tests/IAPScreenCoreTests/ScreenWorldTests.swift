import Foundation
import IAPBasics
import JSONText
import Testing

@Suite("Screening a generated world", .serialized)
struct ScreenWorldTests {
    /// Every planted case flagged with the right rule id, exempted where it should be, and
    /// no clean order or legitimate look-alike flagged. With its store-event log, the orders
    /// events were planted on get what expected.csv says, a forged event flags nothing, and
    /// summary.json counts the events as expected-store-events.json does; without it, those
    /// orders are clean, as they were before the log.
    func checkWorld(_ world: SampleWorld, storeEvents: Bool) throws {
        let s = try Scratch()
        let run = try Tool.run(world.screenArguments(out: s.file("out"), storeEvents: storeEvents))
        #expect(run.status == 0, "\(run.stderr)")
        var expected = try world.expectations()
        if !storeEvents {
            for (id, e) in expected where SampleWorld.eventCases.contains(e.name) { expected[id] = ([], [], e.name) }
        }
        let log = try world.storeEventExpectations()
        var flagged: [String: Set<String>] = [:]
        var exempted: [String: Set<String>] = [:]
        var malformed = 0
        for f in try FindingLine.read(s.file("out/findings.jsonl")) {
            if f.rule == "malformed-record" {
                malformed += 1
                continue
            }
            let id = try #require(f.orderID, "\(f.rule) names no order")
            if f.exempted == nil {
                flagged[id, default: []].insert(f.rule)
            } else {
                exempted[id, default: []].insert(f.rule)
            }
        }
        for (id, e) in expected {
            #expect((flagged[id] ?? []) == e.flagged.subtracting(["malformed-record"]), "\(id) (\(e.name))")
            #expect((exempted[id] ?? []) == e.exempted, "\(id) (\(e.name))")
        }
        for id in flagged.keys { #expect(expected[id] != nil, "unplanned finding on \(id)") }
        #expect(
            malformed == expected.values.filter { $0.flagged.contains("malformed-record") }.count
                + (storeEvents ? log.malformedLines : 0))
        let planted = Set(expected.values.map(\.name))
        for name in ["replay", "restore", "renewal", "reviewer-sandbox", "late-lost-order", "duplicate-row"] {
            #expect(planted.contains(name), "the world should plant \(name)")
        }
        guard storeEvents else { return }
        let summary = try #require(try JSONParser.parse(try s.read("out/summary.json")).object)
        #expect(
            summary["store_events"] == log.storeEvents, "summary.json's store_events against expected-store-events.json"
        )
        #expect(
            summary["consumption_requests"] == log.consumptionRequests,
            "summary.json's consumption_requests against expected-store-events.json")
        #expect(
            try s.read("out/consumption.jsonl").split(separator: "\n").count == Int(
                log.consumptionRequests.object?["answered"]?.int64 ?? -1)
                + Int(log.consumptionRequests.object?["no_consent"]?.int64 ?? -1))
        // Findings that flag no order: an unreadable row, a receipt without its order, and an
        // event not believed (it names the order its transaction belongs to, and changes nothing).
        let unflagging: Set<String> = ["malformed-record", "orphan-receipt", "store-event-invalid"]
        let rows = try s.read("out/flagged.csv").split(separator: "\n").dropFirst()
        let flaggedCSV = Set(rows.map { String($0.prefix { $0 != "," }) })
        #expect(flaggedCSV == Set(expected.filter { !$0.value.flagged.subtracting(unflagging).isEmpty }.keys))
        for (id, e) in expected where e.name == "event-forged-refund-notification" {
            #expect(!flaggedCSV.contains(id), "\(id): a forged refund flags its order")
        }
    }

    @Test("the shipped-size world with its store events: every planted case flagged right, nothing clean flagged")
    func plantedCases() throws {
        let world = try SampleWorld.shared.get()
        try checkWorld(world, storeEvents: true)
        let planted = Set(try world.expectations().values.map(\.name))
        for name in SampleWorld.eventCases { #expect(planted.contains(name), "the world should plant \(name)") }
    }

    @Test(
        "without its store events the world says what it said before them: the orders events were planted on are clean")
    func withoutStoreEvents() throws {
        try checkWorld(try SampleWorld.shared.get(), storeEvents: false)
    }

    @Test("other seeds and sizes hold too")
    func otherSeeds() throws {
        try checkWorld(try SampleWorld(orders: 250, seed: 4242), storeEvents: true)
    }

    @Test(
        "the benchmarks' StoreKit 2 mix: nineteen orders in twenty in the XML dump, every case planted and flagged right"
    )
    func storeKit2Mix() throws {
        let world = try SampleWorld(orders: 1_500, seed: 5, mix: "storekit2")
        try checkWorld(world, storeEvents: true)
        let planted = Set(try world.expectations().values.map(\.name))
        let cases = [
            "replay", "item-mismatch", "sandbox", "reviewer-sandbox", "expired-subscription", "stale-consumable",
            "late-lost-order", "revoked", "txn-not-in-receipt", "account-mismatch", "pending", "foreign-app",
            "missing-receipt", "undecodable", "orphan-receipt", "malformed-row", "unsigned-google", "renewal",
            "restore", "family-sharing", "duplicate-row", "sandbox-order", "not-credited",
            "verify-receipt-json", "forged-json", "tampered-receipt", "xcode-receipt",
        ]
        for name in cases { #expect(planted.contains(name), "the world should plant \(name)") }
        // Through the system's gzip: the dumps' many members are one stream to it too.
        let storeKitRows = try gunzipLines(world.orders[1]).filter { $0 == "\t<row>" }.count
        #expect(storeKitRows > 1_500 * 85 / 100, "\(storeKitRows) StoreKit 2 rows of 1,500 orders")
        #expect(storeKitRows < 1_500)
        let s = try Scratch()
        let bad = try Tool.run(["samples", "--out", s.file("w"), "--mix", "jws"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--mix takes classic or storekit2, not 'jws'"))
    }

    @Test("reports: flagged.csv, findings.jsonl and summary.json say the same thing")
    func reportsAgree() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        #expect(try Tool.run(world.screenArguments(out: s.file("out"))).status == 0)
        let findings = try FindingLine.read(s.file("out/findings.jsonl"))
        let csv = try s.read("out/flagged.csv").split(separator: "\n")
        #expect(csv.first == "order_id,user_id,platform,product_id,amount,currency,created_at,severity,rules,reasons")
        let summary = try #require(try JSONParser.parse(try s.read("out/summary.json")).object)
        #expect(summary["flagged"]?.int64 == Int64(csv.count - 1))
        #expect(summary["malformed"]?.int64 == Int64(findings.filter { $0.rule == "malformed-record" }.count))
        #expect(summary["exempted"]?.int64 == Int64(findings.filter { $0.exempted != nil }.count))
        let byRule = try #require(summary["by_rule"]?.object)
        let total = byRule.members.compactMap { $0.value.int64 }.reduce(0, +)
        #expect(total == Int64(findings.filter { $0.exempted == nil }.count))
        #expect(summary["at_risk"]?.object?["USD"]?.string != nil)
        let inputs = try #require(summary["inputs"]?.array)
        #expect(inputs.count == 4)
        #expect(inputs.allSatisfy { ($0.object?["sha256"]?.string?.count ?? 0) == 64 })
        #expect(summary["rules_sha256"]?.string?.count == 64)
        // Without a ledger, review is null.
        #expect(findings.allSatisfy { $0.review == nil })
        let html = try s.read("out/report.html")
        #expect(html.contains("Content-Security-Policy"))
    }

    @Test(
        "two nights on one ledger: the same findings again, seen; a later replay is flagged against the earlier order")
    func twoNights() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        #expect(try Tool.run(world.screenArguments(out: s.file("night1"), ledger: ledger)).status == 0)
        #expect(try Tool.run(world.screenArguments(out: s.file("night2"), ledger: ledger)).status == 0)
        let one = try FindingLine.read(s.file("night1/findings.jsonl"))
        let two = try FindingLine.read(s.file("night2/findings.jsonl"))
        #expect(one.map { "\($0.orderID ?? "")|\($0.rule)" } == two.map { "\($0.orderID ?? "")|\($0.rule)" })
        #expect(one.filter { $0.orderID != nil }.allSatisfy { $0.review?["status"]?.string == "new" })
        #expect(two.filter { $0.orderID != nil }.allSatisfy { $0.review?["status"]?.string == "seen" })

        // Night three: a new order credits the receipt of a clean order from night one.
        let expected = try world.expectations()
        let receipts = try gunzipLines(world.receipts)
        let victim = try #require(
            receipts.dropFirst().first { line in
                let id = String(line.prefix { $0 != "," })
                return expected[id]?.name == "clean"
            })
        let victimID = String(victim.prefix { $0 != "," })
        let payload = victim.split(separator: ",")[1]
        try s.write(
            "night3/orders.csv",
            "order_id,user_id,item_id,platform,created_at\nNEW-1,thief,\(try itemOf(victimID, world)),ios,2024-03-09T10:00:00Z\n"
        )
        try s.write("night3/receipts.csv", "order_id,receipt\nNEW-1,\(payload)\n")
        let r = try Tool.run([
            "screen", "--rules", world.path + "/Rules", "--orders", s.file("night3/orders.csv"),
            "--receipts", s.file("night3/receipts.csv"), "--out", s.file("night3/out"), "--ledger", ledger,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let three = try FindingLine.read(s.file("night3/out/findings.jsonl"))
        let replay = try #require(three.first { $0.rule == "replayed-transaction" })
        #expect(replay.orderID == "NEW-1")
        #expect(replay.object["evidence"]?.object?["original_order_id"]?.string == victimID)
    }

    func itemOf(_ orderID: String, _ world: SampleWorld) throws -> String {
        let rows = try gunzipLines(world.path + "/orders-appstore.csv.gz")
        let row = try #require(rows.first { $0.hasPrefix(orderID + ",") })
        return String(row.split(separator: ",")[2])
    }
}
