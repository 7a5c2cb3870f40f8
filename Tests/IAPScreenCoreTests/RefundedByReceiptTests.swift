import Foundation
import JSONText
import PostgresTestSupport
import Testing

/// Refunds of orders the dump marks `refunded` whose rows leave `transaction_id` out: the
/// receipt alone names the purchase (docs/store-events.md). Each refund is matched, however
/// the night is read, and raises nothing.
@Suite("A refund of an order known only by its receipt", .serialized)
struct RefundedByReceiptTests {
    /// ThreeNights' Rules, and a night of three refunded orders whose receipts alone name
    /// their purchases — an App Store transaction, a Google purchase refunded by order id and
    /// one refunded by token alone — beside credited orders, and a refund nobody took.
    static func world() throws -> ThreeNights {
        let w = try ThreeNights()
        func withoutTransaction(_ row: JSONObject, status: String) -> JSONObject {
            JSONObject(
                row.members.filter { $0.key != "transaction_id" }.map {
                    $0.key == "status" ? ($0.key, .string(status)) : $0
                })
        }
        try w.write(
            "refunded.jsonl",
            [
                try w.apple("OK1", txn: "5009", at: "2024-03-05T09:00:00Z"),
                withoutTransaction(
                    try w.apple("RA", txn: "5001", at: "2024-03-05T10:00:00Z"), status: "refunded"),
                withoutTransaction(
                    try w.google("RG", orderID: "GPA.51", token: "tok-51", item: "gems", at: "2024-03-05T10:00:00Z"),
                    status: "refunded"),
                try w.google("OK2", orderID: "GPA.59", token: "tok-59", item: "gems", at: "2024-03-05T11:00:00Z"),
                withoutTransaction(
                    try w.google("RT", orderID: "GPA.52", token: "tok-52", item: "vip", at: "2024-03-05T10:00:00Z"),
                    status: "refunded"),
                try w.apple("OK3", txn: "5010", at: "2024-03-05T12:00:00Z"),
            ])
        try w.scratch.write(
            "refunds.jsonl",
            [
                try w.notification("REFUND", uuid: "n-ra", txn: "5001", at: "2024-03-06T00:00:00Z"),
                #"{"purchaseToken":"tok-51","orderId":"GPA.51","voidedTimeMillis":"1709683200000","voidedSource":0,"voidedReason":1}"#,
                // A revoked subscription names only its token, which only RT's receipt holds.
                #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709683200000","subscriptionNotification":{"version":"1.0","notificationType":12,"purchaseToken":"tok-52","subscriptionId":"vip_month"}}"#,
                try w.notification("REFUND", uuid: "n-x", txn: "9999", at: "2024-03-03T00:00:00Z"),
            ].joined(separator: "\n") + "\n")
        return w
    }

    static func storeEvents(_ w: ThreeNights, _ out: String) throws -> JSONObject? {
        try JSONParser.parse(try w.scratch.read(out + "/summary.json")).object?["store_events"]?.object
    }

    /// The night's screen, every path in the world's folder.
    static func arguments(_ w: ThreeNights, _ out: String, ledger: String) -> [String] {
        [
            "screen", "--rules", w.scratch.file("Rules"), "--orders", w.scratch.file("refunded.jsonl"),
            "--store-events", w.scratch.file("refunds.jsonl"), "--out", w.scratch.file(out), "--ledger", ledger,
            "--quiet",
        ]
    }

    @Test(
        "an App Store refund, a Google refund by order id and one by token alone, of orders marked refunded whose rows name no transaction: matched, no finding, at once and in parts"
    )
    func unsharded() throws {
        let w = try Self.world()
        let parts = try NightPartsTests.partSize(of: [w.scratch.file("refunded.jsonl")], parts: 3)
        for (out, ledger, environment) in [
            ("none", "none", [String: String]()), ("sqlite", "sqlite:ledger.sqlite", [:]),
            ("parts", "sqlite:parts.sqlite", parts),
        ] {
            let r = try Tool.run(Self.arguments(w, out, ledger: ledger), in: w.scratch.path, environment: environment)
            #expect(r.status == 0, "\(out): \(r.stderr)")
            #expect(r.stderr.contains("in 3 parts") == (out == "parts"), "\(r.stderr)")
            let events = try #require(try Self.storeEvents(w, out))
            #expect(events["refunds"] == .integer(4), "\(out)")
            #expect(events["matched"] == .integer(3) && events["unmatched"] == .integer(1), "\(out): \(events)")
            #expect(try FindingLine.read(w.scratch.file(out + "/findings.jsonl")).isEmpty, "\(out)")
        }
    }

    @Test("the same night by three workers on one PostgreSQL ledger: every worker counts the three refunds matched")
    func threeWorkers() throws {
        let w = try Self.world()
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        let one = try Tool.run(Self.arguments(w, "one", ledger: single.uri))
        #expect(one.status == 0, "\(one.stderr)")
        let counts = try #require(try Self.storeEvents(w, "one"))
        #expect(counts["matched"] == .integer(3) && counts["unmatched"] == .integer(1), "\(counts)")
        let workers = ShardedRunTests.together(
            (1...3).map { i in
                Self.arguments(w, "s\(i)", ledger: sharded.uri) + ["--shard", "\(i)/3", "--run-id", "refunded"]
            })
        for (k, r) in workers.enumerated() {
            #expect(r?.status == 0, "shard \(k + 1): \(r?.stderr ?? "did not run")")
            #expect(try Self.storeEvents(w, "s\(k + 1)") == counts, "shard \(k + 1)")
        }
    }
}
