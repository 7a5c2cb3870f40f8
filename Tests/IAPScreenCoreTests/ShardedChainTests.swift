import Foundation
import IAPBasics
import JSONText
import PostgresTestSupport
import ReceiptBuilder
import Testing

/// A worker keeps another shard's order that may take none of its own keys when a chain of
/// orders ties it to them (docs/ledger.md): here the second shard holds P, which takes K2, and
/// Q, whose receipt holds K1 and K2 and so takes K1; the first shard's O, holding K1 alone,
/// is then a replay of Q. Without P, Q would take K2 and O would look clean.
@Suite("Sharded runs: a chain of orders across shards", .serialized)
struct ShardedChainTests {
    static let bundle = "com.example.game"

    @Test("an order decided through another shard's two orders is a replay, as in one unsharded run and in two parts")
    func chainAcrossShards() throws {
        let s = try Scratch()
        let pki = try TestPKI()
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: s.file("Rules")), googlePackageNames: [])
        try s.write("Rules/apps.csv", "platform,app_id\nios,\(Self.bundle)\n")
        try s.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency,sample_content\n"
                + "gems,ios,com.x.gems,consumable,0.99,USD,yes\n")
        let spec = try #require(ShardSpec(index: 1, count: 2))
        let first = Self.ids(in: 1, of: spec, count: 1)
        let second = Self.ids(in: 2, of: spec, count: 2)
        let (o, p, q) = (first[0], second[0], second[1])
        let k1 = ("5001", "2024-03-01T08:00:00Z")
        let k2 = ("5002", "2024-03-01T09:00:00Z")
        let rows = [
            try row(p, user: "u-p", at: "2024-03-01T10:00:00Z", purchases: [k2], pki: pki),
            try row(q, user: "u-q", at: "2024-03-01T11:00:00Z", purchases: [k1, k2], pki: pki),
            try row(o, user: "u-o", at: "2024-03-01T12:00:00Z", purchases: [k1], pki: pki),
        ]
        try s.write("orders.jsonl", rows.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")

        func screen(_ out: String, _ ledger: String, shard: Int? = nil) -> [String] {
            [
                "screen", "--rules", s.file("Rules"), "--orders", s.file("orders.jsonl"), "--out", s.file(out),
                "--ledger", ledger, "--quiet",
            ] + (shard.map { ["--shard", "\($0)/2", "--run-id", "chain"] } ?? [])
        }
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        let one = try Tool.run(screen("one", single.uri))
        #expect(one.status == 0, "\(one.stderr)")
        let workers = ShardedRunTests.together([
            screen("s1", sharded.uri, shard: 1), screen("s2", sharded.uri, shard: 2),
        ])
        for r in workers { #expect(r?.status == 0, "\(r?.stderr ?? "did not run")") }
        let merged = try Tool.run(["merge", "--out", s.file("merged"), "--quiet", s.file("s1"), s.file("s2")])
        #expect(merged.status == 0, "\(merged.stderr)")
        try ShardedRunTests.expectSame(s.file("one"), s.file("merged"))
        let replays = try FindingLine.read(s.file("merged/findings.jsonl")).filter { $0.rule == "replayed-transaction" }
        #expect(replays.map(\.orderID) == [o])
        #expect(replays.first?.object["evidence"]?.object?["original_order_id"]?.string == q)
        // A night read in two parts splits its orders as two shards do (docs/commands.md).
        let size = try FileManager.default.attributesOfItem(atPath: s.file("orders.jsonl"))[.size] as? Int ?? 0
        let parts = try Tool.run(
            screen("parts", "none"),
            environment: ["IAPSCREEN_PART_MB": String(Double(size) / 2 / 1_048_576 * 1.0001), "IAPSCREEN_TIMINGS": "1"])
        #expect(parts.status == 0 && parts.stderr.contains("in 2 parts"), "\(parts.stderr)")
        let alone = try Tool.run(screen("alone", "none"))
        #expect(alone.status == 0, "\(alone.stderr)")
        try ShardedRunTests.expectSame(s.file("alone"), s.file("parts"))
        #expect(try s.read("parts/findings.jsonl").contains("\"original_order_id\":\"\(q)\""))
    }

    /// The first `count` ids ORD-C-n that `spec`'s partition puts in shard `shard`.
    static func ids(in shard: Int, of spec: ShardSpec, count: Int) -> [String] {
        (0..<10_000).lazy.map { "ORD-C-\($0)" }.filter { spec.shard(of: $0) == shard }.prefix(count).map { $0 }
    }

    /// A credited order of gems whose app receipt (made a minute before it) holds `purchases`.
    private func row(
        _ id: String, user: String, at: String, purchases: [(String, String)], pki: TestPKI
    ) throws -> JSONObject {
        let created = try #require(Timestamp.parse(at))
        var spec = AppReceiptBuilder.Spec(
            bundleID: Self.bundle, appVersion: "42", appItemID: 1_234_567_890,
            creationDate: Timestamp(clampingMillis: created.millis - 60_000))
        for (txn, date) in purchases {
            var p = AppReceiptBuilder.InAppPurchase(
                productID: "com.x.gems", transactionID: txn, purchaseDate: try #require(Timestamp.parse(date)))
            p.productTypeCode = 1
            spec.purchases.append(p)
        }
        let receipt = try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)
        return JSONObject([
            ("order_id", .string(id)), ("user_id", .string(user)), ("item_id", .string("gems")),
            ("platform", .string("ios")), ("amount", .string("0.99")), ("currency", .string("USD")),
            ("status", .string("credited")), ("created_at", .string(at)),
            ("receipt", .string(Data(receipt).base64EncodedString())),
        ])
    }
}
