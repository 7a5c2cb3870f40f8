import Foundation
import IAPBasics
import JSONText
import PostgresClient
import PostgresTestSupport
import Testing

/// `screen --shard I/N --split-dumps` (docs/ledger.md, "Dumps split by shard"): each worker
/// given its own shard's dumps alone, as an export split by shard writes them; merged, the
/// reports of one unsharded run over every shard's dumps in shard order.
@Suite("Sharded runs on dumps split by shard", .serialized)
struct ShardedSplitDumpsTests {
    static let orderDumps = ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz"]
    static let receiptDump = "receipts-appstore.csv.gz"

    /// The world's dumps split into `count` shards by scripts/split-dumps-by-shard.py (an
    /// implementation of the hash of its own), under `dir`/shard-I.
    static func split(_ world: SampleWorld, count: Int, into dir: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/split-dumps-by-shard.py").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["python3", script, String(count), dir] + (orderDumps + [receiptDump]).map { world.path + "/" + $0 }
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "split-dumps-by-shard.py: \(message)")
    }

    static func orders(_ dir: String, shard i: Int) -> [String] { orderDumps.map { "\(dir)/shard-\(i)/\($0)" } }
    static func receipts(_ dir: String, shard i: Int) -> String { "\(dir)/shard-\(i)/\(receiptDump)" }

    /// `screen` over the given dumps of the world's night, with its store events.
    static func arguments(
        _ world: SampleWorld, orders: [String], receipts: [String], out: String, ledger: String
    ) throws -> [String] {
        ["screen", "--rules", world.path + "/Rules", "--orders"] + orders + ["--receipts"] + receipts
            + ["--store-events", world.storeEvents, "--now", try world.consumptionNow()]
            + ["--out", out, "--ledger", ledger, "--quiet"]
    }

    /// Worker `i` of `count`, given shard `own`'s dumps (its own, unless a test says otherwise)
    /// and `--split-dumps`.
    static func worker(
        _ world: SampleWorld, _ dumps: String, _ i: Int, of count: Int, own: Int? = nil, out: String, ledger: String,
        runID: String
    ) throws -> [String] {
        let own = own ?? i
        return try arguments(
            world, orders: orders(dumps, shard: own), receipts: [receipts(dumps, shard: own)], out: out, ledger: ledger)
            + ["--shard", "\(i)/\(count)", "--run-id", runID, "--split-dumps"]
    }

    static func inputs(_ summary: String) throws -> [String] {
        let o = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: summary)))).object
        guard case .array(let list)? = o?["inputs"] else { return [] }
        return list.compactMap { $0.object?["path"]?.string }
    }

    @Test(
        "three workers, each given its own shard's dumps alone, on two nights of one ledger: merged, the findings.jsonl, flagged.csv, totals and inputs of one unsharded run over every shard's dumps in shard order"
    )
    func threeWorkersOnTheirOwnDumps() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        try Self.split(world, count: 3, into: s.file("dumps"))
        let dumps = s.file("dumps")
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        for night in ["n1", "n2"] {
            let one = try Tool.run(
                try Self.arguments(
                    world, orders: (1...3).flatMap { Self.orders(dumps, shard: $0) },
                    receipts: (1...3).map { Self.receipts(dumps, shard: $0) }, out: s.file("one-\(night)"),
                    ledger: single.uri))
            #expect(one.status == 0, "\(one.stderr)")
            let workers = ShardedRunTests.together(
                try (1...3).map { i in
                    try Self.worker(
                        world, dumps, i, of: 3, out: s.file("\(night)-s\(i)"), ledger: sharded.uri,
                        runID: "split-\(night)")
                })
            for (k, r) in workers.enumerated() {
                #expect(r?.status == 0, "shard \(k + 1): \(r?.stderr ?? "did not run")")
            }
            let merged = try Tool.run(
                ["merge", "--out", s.file("merged-\(night)"), "--quiet"]
                    + (1...3).reversed().map {
                        s.file("\(night)-s\($0)")
                    })
            #expect(merged.status == 0, "\(merged.stderr)")
            try ShardedRunTests.expectSame(s.file("one-\(night)"), s.file("merged-\(night)"))
            let expected = try Self.inputs(s.file("one-\(night)/summary.json"))
            #expect(expected.count == 13)
            #expect(try Self.inputs(s.file("merged-\(night)/summary.json")) == expected)
            // Each worker read its own dumps alone (and the whole store-event log).
            #expect(try Self.inputs(s.file("\(night)-s2/summary.json")).count == 5)
        }
        let findings = try FindingLine.read(s.file("merged-n1/findings.jsonl"))
        let spec = try #require(ShardSpec(index: 1, count: 3))
        #expect(
            findings.contains { f in
                guard f.rule == "replayed-transaction", let order = f.orderID,
                    let original = f.object["evidence"]?.object?["original_order_id"]?.string
                else { return false }
                return spec.shard(of: order) != spec.shard(of: original)
            }, "a replay across shards")
        #expect(
            try FindingLine.read(s.file("merged-n2/findings.jsonl")).contains {
                $0.object["review"]?.object?["status"]?.string == "seen"
            })
    }

    @Test(
        "a worker given another shard's dump is exit 3 naming the record, its shard and the file, writes nothing and leaves the ledger as it was; a run whose workers read their dumps differently is refused by the ledger (exit 2) and by merge"
    )
    func wrongShardAndMixedRuns() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        try Self.split(world, count: 2, into: s.file("dumps"))
        let dumps = s.file("dumps")
        let database = try TestDatabase()
        let wrong = try Tool.run(
            try Self.worker(world, dumps, 1, of: 2, own: 2, out: s.file("wrong"), ledger: database.uri, runID: "w"))
        #expect(wrong.status == 3, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("shard-2/orders-appstore.csv.gz:2: order \"ORD-"), "\(wrong.stderr)")
        #expect(wrong.stderr.contains("is shard 2/2's"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("wrong/findings.jsonl")))
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT count(*) FROM iapscreen.claims").int64(0, 0) == 0)
        // Without --shard, --split-dumps is bad usage.
        let alone = try Tool.run(world.screenArguments(out: s.file("alone")) + ["--split-dumps"])
        #expect(alone.status == 2 && alone.stderr.contains("--split-dumps goes with --shard"), "\(alone.stderr)")

        // Shard 2 given every dump, then shard 1 its own alone: the run's workers read their
        // dumps differently, and the second is refused before it reads anything (on a ledger
        // of its own: the refused run above stays in progress until its --shard-timeout).
        let other = try TestDatabase()
        let first = try Tool.run(
            ShardedRunTests.arguments(world, out: s.file("m2"), ledger: other.uri, shard: (2, 2), runID: "mixed")
                + ["--shard-timeout", "1"])
        #expect(first.status == 3 && first.stderr.contains("shards 1 of 2 have not staged"), "\(first.stderr)")
        #expect(first.stderr.components(separatedBy: "nothing written").count == 2, "said once: \(first.stderr)")
        let second = try Tool.run(
            try Self.worker(world, dumps, 1, of: 2, out: s.file("m1"), ledger: other.uri, runID: "mixed"))
        #expect(second.status == 2, "\(second.stderr)")
        #expect(second.stderr.contains("every worker of a run gives --split-dumps, or none does"), "\(second.stderr)")

        // merge, too, refuses the folders of shards that read their dumps differently.
        let third = try TestDatabase()
        let workers = ShardedRunTests.together(
            try (1...2).map { i in
                try Self.worker(world, dumps, i, of: 2, out: s.file("ok\(i)"), ledger: third.uri, runID: "ok")
            })
        for r in workers { #expect(r?.status == 0, "\(r?.stderr ?? "did not run")") }
        let runFile = s.file("ok2/shard-run.json")
        let run = try String(contentsOfFile: runFile, encoding: .utf8)
        let edited = run.replacingOccurrences(
            of: #"(,\s*)?"split_dumps"\s*:\s*\[[0-9, ]*\]"#, with: "", options: .regularExpression)
        #expect(edited != run)
        try edited.write(toFile: runFile, atomically: true, encoding: .utf8)
        let merged = try Tool.run(["merge", "--out", s.file("merged"), s.file("ok1"), s.file("ok2")])
        #expect(merged.status == 2 && merged.stderr.contains("read their dumps differently"), "\(merged.stderr)")
    }

    @Test("the export function docs/ledger.md gives for PostgreSQL puts every order in the shard iapscreen does")
    func exportFunctionAgrees() throws {
        let page = try ReferenceDocsTests.page("ledger.md")
        let start = try #require(page.range(of: "<!-- export-function -->\n```sql\n"))
        let end = try #require(
            page.range(of: "```\n<!-- /export-function -->", range: start.upperBound..<page.endIndex))
        let function = String(page[start.upperBound..<end.lowerBound])
        let database = try TestDatabase()
        let db = try PostgresConnection(uri: database.uri)
        try db.execute(function)
        let ids =
            ["", "ORD-1000007", "ünïcode-€-𝄞", "a", String(repeating: "z", count: 300), "GPA.3342-1234-5678-90123"]
            + (0..<200).map { "ORD-\(1_000_000 + $0 * 7919)" }
        for count in [1, 2, 3, 4, 7, 64, 4096] {
            let spec = try #require(ShardSpec(index: 1, count: count))
            for id in ids {
                let shard = try db.query("SELECT iapscreen_shard($1, $2::integer)", [.text(id), .int64(Int64(count))])
                    .int64(0, 0)
                #expect(shard == Int64(spec.shard(of: id)), "\(id) of \(count)")
            }
        }
    }
}
