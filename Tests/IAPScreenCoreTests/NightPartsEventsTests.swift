import Foundation
import JSONText
import Testing

/// A night with store events read in parts (docs/commands.md, "Big nights"): every part judges
/// every event beside the orders the events name, and the night's reports, refund-request
/// answers and ledger are those of the night read at once.
@Suite("A big night with store events screened in parts", .serialized)
struct NightPartsEventsTests {
    @Test(
        "the sample world's refunds and refund requests on two nights, at once and in three parts on SQLite ledgers: the same reports, summary, consumption.jsonl and ledger"
    )
    func sampleWorld() throws {
        let s = try Scratch()
        try NightPartsTests.twoNights(s, partsLedger: "sqlite:" + s.file("parts.sqlite"), storeEvents: true)
        for night in ["n1", "n2"] {
            let answers = try s.read("whole-\(night)/consumption.jsonl")
            #expect(!answers.isEmpty)
            #expect(answers == (try s.read("parts-\(night)/consumption.jsonl")))
        }
        try NightPartsTests.expectSameLedger(s)
        for query in [
            "SELECT key, refunded_at, event, reason, source, reversed_at FROM refunds ORDER BY key",
            "SELECT identity, type FROM store_events ORDER BY identity",
        ] {
            let whole = try NightPartsTests.rows(s.file("whole.sqlite"), query)
            #expect(!whole.isEmpty, "\(query)")
            #expect(whole == (try NightPartsTests.rows(s.file("parts.sqlite"), query)), "\(query)")
        }
    }

    @Test(
        "three nights of refunds, reversals, reruns and a refunded purchase credited again, each at once and in three parts: the same reports and summaries"
    )
    func threeNights() throws {
        let w = try ThreeNights()
        let nights: [(orders: String, events: String?)] = [
            ("night1.jsonl", nil), ("night2.jsonl", "events2.jsonl"), ("night2.jsonl", "events2.jsonl"),
            ("night3.jsonl", "events3.jsonl"),
        ]
        for (k, n) in nights.enumerated() {
            let environment = try NightPartsTests.partSize(of: [w.scratch.file(n.orders)], parts: 3)
            for (name, env) in [("whole", [:]), ("parts", environment)] {
                let r = try Tool.run(
                    ["screen", "--rules", "Rules", "--orders", n.orders, "--out", "\(name)\(k)"]
                        + ["--ledger", "sqlite:\(name).sqlite", "--quiet"]
                        + (n.events.map { ["--store-events", $0] } ?? []),
                    in: w.scratch.path, environment: env.merging(["IAPSCREEN_TIMINGS": "1"]) { a, _ in a })
                #expect(r.status == 0 && r.stderr.contains("in 3 parts") == (name == "parts"), "\(r.stderr)")
            }
            // Night one finds nothing: the others do.
            for file in ShardedRunTests.files {
                let whole = try w.scratch.read("whole\(k)/\(file)")
                #expect(whole == (try w.scratch.read("parts\(k)/\(file)")), "night \(k): \(file)")
                #expect(k == 0 || file != "findings.jsonl" || !whole.isEmpty, "night \(k)")
            }
            #expect(
                try NightPartsTests.summary(w.scratch, "whole\(k)") == NightPartsTests.summary(w.scratch, "parts\(k)"))
        }
    }

    @Test("refund requests of every kind, at once and in three parts: the same consumption.jsonl and counts")
    func refundRequests() throws {
        let w = try RefundRequestWorld()
        let environment = try NightPartsTests.partSize(of: [w.scratch.file("orders.jsonl")], parts: 3)
        for (name, env) in [("whole", [:]), ("parts", environment)] {
            let r = try Tool.run(
                [
                    "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--store-events", "requests.jsonl",
                    "--ledger", "sqlite:\(name).sqlite", "--now", RefundRequestWorld.now, "--out", name, "--quiet",
                ], in: w.scratch.path, environment: env.merging(["IAPSCREEN_TIMINGS": "1"]) { a, _ in a })
            #expect(r.status == 0 && r.stderr.contains("in 3 parts") == (name == "parts"), "\(r.stderr)")
        }
        #expect(try w.scratch.read("whole/consumption.jsonl") == w.scratch.read("parts/consumption.jsonl"))
        #expect(try w.counts("whole") == w.counts("parts"))
        #expect(try NightPartsTests.summary(w.scratch, "whole") == NightPartsTests.summary(w.scratch, "parts"))
    }
}
