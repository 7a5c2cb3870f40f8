import Foundation
import IAPBasics
import JSONText
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// `screen --shard I/N --run-id ID` and `merge` end to end (docs/ledger.md): workers started at
/// once against one PostgreSQL ledger, each a process of its own, then merged; compared
/// byte for byte with one unsharded run of the same night on a fresh ledger.
@Suite("Sharded runs and merge, end to end", .serialized)
struct ShardedRunTests {
    static let files = ["findings.jsonl", "flagged.csv"]

    /// The world's night for one shard (or unsharded), with its store events.
    static func arguments(
        _ world: SampleWorld, out: String, ledger: String, shard: (Int, Int)?, runID: String = "night-1",
        events: Bool = true, extra: [String] = []
    ) -> [String] {
        world.screenArguments(out: out, ledger: ledger, storeEvents: events) + ["--quiet"]
            + (shard.map { ["--shard", "\($0.0)/\($0.1)", "--run-id", runID] } ?? []) + extra
    }

    /// Runs every argument list at once, each in a process of its own.
    static func together(_ runs: [[String]]) -> [ToolRun?] {
        let results = Mutex([ToolRun?](repeating: nil, count: runs.count))
        let done = DispatchGroup()
        for (k, args) in runs.enumerated() {
            done.enter()
            Thread {
                defer { done.leave() }
                let r = try? Tool.run(args)
                results.withLock { $0[k] = r }
            }.start()
        }
        done.wait()
        return results.withLock { $0 }
    }

    static func expectSame(_ a: String, _ b: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        for file in files {
            let left = try Data(contentsOf: URL(fileURLWithPath: a + "/" + file))
            let right = try Data(contentsOf: URL(fileURLWithPath: b + "/" + file))
            #expect(left == right, "\(a)/\(file) and \(b)/\(file) differ", sourceLocation: sourceLocation)
            #expect(!left.isEmpty, sourceLocation: sourceLocation)
        }
    }

    /// One night screened unsharded on `single` and by `workers` workers at once on `sharded`,
    /// then merged: the same findings.jsonl and flagged.csv. Reports in one-NIGHT, NIGHT-sI and
    /// merged-NIGHT.
    static func night(
        _ world: SampleWorld, _ night: String, workers count: Int, _ s: Scratch, single: TestDatabase,
        sharded: TestDatabase, events: Bool = true, mergeReversed: Bool = false,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let one = try Tool.run(
            Self.arguments(world, out: s.file("one-\(night)"), ledger: single.uri, shard: nil, events: events))
        #expect(one.status == 0, "\(one.stderr)", sourceLocation: sourceLocation)
        let workers = Self.together(
            (1...count).map { i in
                Self.arguments(
                    world, out: s.file("\(night)-s\(i)"), ledger: sharded.uri, shard: (i, count),
                    runID: "night-\(night)", events: events)
            })
        for (k, r) in workers.enumerated() {
            #expect(r?.status == 0, "shard \(k + 1): \(r?.stderr ?? "did not run")", sourceLocation: sourceLocation)
        }
        let parts = (1...count).map { s.file("\(night)-s\($0)") }
        let merged = try Tool.run(
            ["merge", "--out", s.file("merged-\(night)"), "--quiet"] + (mergeReversed ? parts.reversed() : parts))
        #expect(merged.status == 0, "\(merged.stderr)", sourceLocation: sourceLocation)
        try Self.expectSame(s.file("one-\(night)"), s.file("merged-\(night)"), sourceLocation: sourceLocation)
    }

    @Test(
        "three workers at once, then merge: the findings.jsonl and flagged.csv of one unsharded run, replays across shards included, and again on a second night"
    )
    func threeWorkers() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        for night in ["n1", "n2"] {
            // Merged in reverse: merge puts the shards in order itself.
            try Self.night(world, night, workers: 3, s, single: single, sharded: sharded, mergeReversed: true)
            // Every worker counts the whole log as one run does, refunds of orders the dump
            // marks refunded (another shard's) matched among them.
            func storeEvents(_ dir: String) throws -> JSONValue? {
                try JSONParser.parse(try s.read(dir + "/summary.json")).object?["store_events"]
            }
            let counts = try storeEvents("one-\(night)")
            #expect(counts != nil)
            for i in 1...3 { #expect(try storeEvents("\(night)-s\(i)") == counts, "shard \(i) of \(night)") }
            #expect(try storeEvents("merged-\(night)") == counts)
        }
        // The night has replays whose original another shard screened.
        let replays = try FindingLine.read(s.file("merged-n1/findings.jsonl")).filter {
            $0.rule == "replayed-transaction"
        }
        let across = replays.filter { f in
            guard let order = f.orderID, let original = f.object["evidence"]?.object?["original_order_id"]?.string,
                let spec = ShardSpec(index: 1, count: 3)
            else { return false }
            return spec.shard(of: order) != spec.shard(of: original)
        }
        #expect(!across.isEmpty, "a replay across shards")
        // The second night (the same dumps again) finds what the first reported, seen.
        #expect(
            try FindingLine.read(s.file("merged-n2/findings.jsonl")).contains {
                $0.object["review"]?.object?["status"]?.string == "seen"
            })
    }

    @Test(
        "one worker (--shard 1/1) and two workers, on two nights of one ledger each with store events: merged, the reports of one unsharded run"
    )
    func oneAndTwoWorkers() throws {
        let world = try SampleWorld.shared.get()
        for count in [1, 2] {
            let s = try Scratch()
            let single = try TestDatabase()
            let sharded = try TestDatabase()
            for night in ["n1", "n2"] {
                try Self.night(world, night, workers: count, s, single: single, sharded: sharded)
            }
        }
    }

    @Test(
        "three workers with a rule on user.orders (each counts its users' orders on the other shards, keeping only the orders tied to its keys): the reports of one unsharded run"
    )
    func userOrdersAcrossShards() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let rules = try world.rulesCountingUserOrders(in: s)
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        func arguments(_ out: String, _ ledger: String, _ shard: Int?) -> [String] {
            ["screen", "--rules", rules, "--orders"] + world.orders
                + ["--receipts", world.receipts, "--out", s.file(out), "--ledger", ledger, "--quiet"]
                + (shard.map { ["--shard", "\($0)/3", "--run-id", "users"] } ?? [])
        }
        let one = try Tool.run(arguments("one", single.uri, nil))
        #expect(one.status == 0, "\(one.stderr)")
        let many = try FindingLine.read(s.file("one/findings.jsonl")).filter { $0.rule == "many-orders" }
        #expect(!many.isEmpty)
        let workers = Self.together((1...3).map { (i: Int) in arguments("s\(i)", sharded.uri, i) })
        for (k, r) in workers.enumerated() { #expect(r?.status == 0, "shard \(k + 1): \(r?.stderr ?? "did not run")") }
        let merged = try Tool.run(["merge", "--out", s.file("merged"), "--quiet"] + (1...3).map { s.file("s\($0)") })
        #expect(merged.status == 0, "\(merged.stderr)")
        try Self.expectSame(s.file("one"), s.file("merged"))
    }

    @Test(
        "a user's consents stated at one time by orders on two shards: the ledger keeps the later order's, as one run does, whichever shard holds it"
    )
    func consentTieAcrossShards() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        // ORD-T1 is shard 1/2's, ORD-T2 shard 2/2's (fnv1a64 of the id mod 2).
        let spec = try #require(ShardSpec(index: 1, count: 2))
        #expect(spec.shard(of: "ORD-T1") == 1 && spec.shard(of: "ORD-T2") == 2)
        let header =
            "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,environment,created_at,consent\n"
        func row(_ id: String, _ consent: String) -> String {
            "\(id),user-tie,no_ads,ios,,2.99,USD,credited,,2024-03-01T10:00:00Z,\(consent)\n"
        }
        let receipts = try s.write("receipts.csv", "order_id,receipt,received_at\n")
        for (night, rows) in [
            ("a", row("ORD-T2", "yes") + row("ORD-T1", "no")), ("b", row("ORD-T1", "no") + row("ORD-T2", "yes")),
        ] {
            let orders = try s.write("orders-\(night).csv", header + rows)
            let single = try TestDatabase()
            let sharded = try TestDatabase()
            func arguments(_ ledger: String, _ out: String) -> [String] {
                ["screen", "--rules", world.path + "/Rules", "--orders", orders, "--receipts", receipts]
                    + ["--out", s.file(out), "--ledger", ledger, "--quiet"]
            }
            let one = try Tool.run(arguments(single.uri, "one-\(night)"))
            #expect(one.status == 0, "\(one.stderr)")
            let workers = Self.together(
                (1...2).map { (i: Int) in
                    arguments(sharded.uri, "\(night)-s\(i)") + ["--shard", "\(i)/2", "--run-id", "tie-\(night)"]
                })
            for r in workers { #expect(r?.status == 0, "\(r?.stderr ?? "did not run")") }
            func consents(_ uri: String) throws -> [String?] {
                let r = try PostgresConnection(uri: uri).query(
                    "SELECT user_id, consent::text, said_at::text, order_id FROM iapscreen.consents ORDER BY 1")
                return try (0..<r.rowCount).flatMap { i in try (0..<4).map { try r.text(i, $0) } }
            }
            let kept = try consents(single.uri)
            #expect(kept.last == (night == "a" ? "ORD-T1" : "ORD-T2"), "night \(night): \(kept)")
            #expect(try consents(sharded.uri) == kept, "night \(night)")
        }
    }

    @Test(
        "four workers on a night without store events (each keeps only the other shards' orders tied to its own keys), after a night with them: the reports of one unsharded run, replays across shards included"
    )
    func fourWorkersWithoutEvents() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        // The first night leaves refunds in the ledger that the second, without events, judges.
        for (night, events) in [("n1", true), ("n2", false)] {
            try Self.night(world, night, workers: 4, s, single: single, sharded: sharded, events: events)
        }
        let across = try FindingLine.read(s.file("merged-n2/findings.jsonl")).filter { f in
            guard f.rule == "replayed-transaction", let order = f.orderID,
                let original = f.object["evidence"]?.object?["original_order_id"]?.string,
                let spec = ShardSpec(index: 1, count: 4)
            else { return false }
            return spec.shard(of: order) != spec.shard(of: original)
        }
        #expect(!across.isEmpty, "a replay across shards")
    }

    @Test(
        "a worker killed at a random moment and run again gives the same reports; a second run id meanwhile is exit 4")
    func killedWorker() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let single = try TestDatabase()
        let sharded = try TestDatabase()
        let one = try Tool.run(Self.arguments(world, out: s.file("one"), ledger: single.uri, shard: nil))
        #expect(one.status == 0, "\(one.stderr)")

        // Shard 2 dies somewhere between its start and its wait for shard 1 (it cannot end
        // before shard 1 has staged).
        let victim = Process()
        victim.executableURL = Tool.binary
        victim.arguments = Self.arguments(world, out: s.file("s2"), ledger: sharded.uri, shard: (2, 2))
        victim.standardError = FileHandle.nullDevice
        try victim.run()
        usleep(useconds_t.random(in: 0...1_500_000))
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        #expect(victim.terminationReason == .uncaughtSignal)

        // Shard 1 joins and waits for shard 2; meanwhile another run id is refused.
        let firstDone = DispatchGroup()
        let first = Mutex<ToolRun?>(nil)
        let firstArguments = Self.arguments(world, out: s.file("s1"), ledger: sharded.uri, shard: (1, 2))
        firstDone.enter()
        Thread {
            defer { firstDone.leave() }
            let r = try? Tool.run(firstArguments)
            first.withLock { $0 = r }
        }.start()
        try waitUntilJoined(sharded, run: "night-1", shard: 1) { firstDone.wait(timeout: .now()) == .timedOut }
        let other = try Tool.run(
            Self.arguments(world, out: s.file("other"), ledger: sharded.uri, shard: (1, 2), runID: "night-2"))
        #expect(other.status == 4, "\(other.stderr)")
        #expect(other.stderr.contains("sharded run night-1: "), "\(other.stderr)")
        // Shard 1 may be past its wait by now (shard 2 staged before it died): when it still
        // runs, it is named by its process and host.
        #expect(
            other.stderr.contains("shard 1 by iapscreen ") || other.stderr.contains("no worker is running now"),
            "\(other.stderr)")
        let unsharded = try Tool.run(Self.arguments(world, out: s.file("other2"), ledger: sharded.uri, shard: nil))
        #expect(unsharded.status == 4, "\(unsharded.stderr)")
        #expect(unsharded.stderr.contains("sharded run night-1: "), "\(unsharded.stderr)")

        let rerun = try Tool.run(Self.arguments(world, out: s.file("s2"), ledger: sharded.uri, shard: (2, 2)))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        firstDone.wait()
        #expect(first.withLock { $0?.status } == 0, "\(first.withLock { $0?.stderr } ?? "")")
        let merged = try Tool.run(["merge", "--out", s.file("merged"), "--quiet", s.file("s1"), s.file("s2")])
        #expect(merged.status == 0, "\(merged.stderr)")
        try Self.expectSame(s.file("one"), s.file("merged"))
        // The completed run is among the last runs under its run id.
        let status = try Tool.run(["ledger", "status", "--ledger", sharded.uri])
        #expect(
            status.stdout.contains("last runs, newest first:\n  run night-1 (2 shards)  started "), "\(status.stdout)")
        // The same run id once more: the run is over.
        let late = try Tool.run(Self.arguments(world, out: s.file("late"), ledger: sharded.uri, shard: (1, 2)))
        #expect(late.status == 2 && late.stderr.contains("completed already"), "\(late.stderr)")
    }

    /// Waits until shard `shard` of `run` has joined (its state row is there), however long the
    /// worker takes to get there, while `running` says the worker has not ended.
    private func waitUntilJoined(
        _ database: TestDatabase, run: String, shard: Int, while running: () -> Bool
    ) throws {
        let db = try PostgresConnection(uri: database.uri)
        var ended = false
        let joined = try TestServer.eventually {
            let exists = try db.query("SELECT to_regclass('iapscreen.shard_states') IS NOT NULL").bool(0, 0) == true
            if exists,
                try db.query(
                    "SELECT count(*) FROM iapscreen.shard_states WHERE run_id = $1 AND shard = $2",
                    [.text(run), .int64(Int64(shard))]
                ).int64(0, 0) == 1
            {
                return true
            }
            ended = !running()
            return ended
        }
        if ended { Issue.record("shard \(shard) of \(run) ended without joining") }
        if !joined { Issue.record("shard \(shard) of \(run) never joined") }
    }

    @Test(
        "refusals: --shard without a postgres:// ledger or a run id, or out of range, is exit 2; a shard left alone past --shard-timeout is exit 3 naming the missing; merge of an incomplete or mixed set is exit 2"
    )
    func refusals() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let database = try TestDatabase()
        let sqlite = try Tool.run(
            Self.arguments(world, out: s.file("x"), ledger: "sqlite:" + s.file("l.sqlite"), shard: (1, 2)))
        #expect(sqlite.status == 2 && sqlite.stderr.contains("--shard needs a postgres:// ledger"), "\(sqlite.stderr)")
        let noRun = try Tool.run(world.screenArguments(out: s.file("x"), ledger: database.uri) + ["--shard", "1/2"])
        #expect(noRun.status == 2 && noRun.stderr.contains("--shard needs --run-id"), "\(noRun.stderr)")
        for bad in ["3/2", "0/2", "1/0", "a/b", "1/2/3", "-1/2"] {
            let r = try Tool.run(
                world.screenArguments(out: s.file("x"), ledger: database.uri) + ["--shard", bad, "--run-id", "n"])
            #expect(r.status == 2, "--shard \(bad): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.file("x")))

        let alone = try Tool.run(
            Self.arguments(
                world, out: s.file("a1"), ledger: database.uri, shard: (1, 3), runID: "lonely",
                extra: ["--shard-timeout", "1"]))
        #expect(alone.status == 3 && alone.stderr.contains("shards 2, 3 of 3"), "\(alone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("a1/findings.jsonl")))
        let status = try Tool.run(["ledger", "status", "--ledger", database.uri])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout.contains(
                "run in progress: 1 sharded\n  sharded run lonely (3 shards) in progress: staged 1, "
                    + "finished none, running now none; last heard of "), "\(status.stdout)")

        // The lonely run is in progress until it is abandoned: other runs go to other ledgers.
        // Two runs of two shards; a set missing one, and a set mixing runs.
        let first = try TestDatabase()
        let second = try TestDatabase()
        for (run, db) in [("r1", first), ("r2", second)] {
            let workers = Self.together(
                (1...2).map { i in
                    Self.arguments(
                        world, out: s.file("\(run)-s\(i)"), ledger: db.uri, shard: (i, 2), runID: run,
                        extra: ["--shard-timeout", "600"])
                })
            for r in workers { #expect(r?.status == 0, "\(r?.stderr ?? "")") }
        }
        let missing = try Tool.run(["merge", "--out", s.file("m1"), s.file("r1-s1")])
        #expect(missing.status == 2 && missing.stderr.contains("missing: 2"), "\(missing.stderr)")
        let mixed = try Tool.run(["merge", "--out", s.file("m2"), s.file("r1-s1"), s.file("r2-s2")])
        #expect(mixed.status == 2 && mixed.stderr.contains("different runs"), "\(mixed.stderr)")
        let twice = try Tool.run(["merge", "--out", s.file("m3"), s.file("r1-s1"), s.file("r1-s1")])
        #expect(twice.status == 2, "\(twice.stderr)")
        let notShard = try Tool.run(["merge", "--out", s.file("m4"), s.file("r1-s1"), world.path])
        #expect(notShard.status == 2 || notShard.status == 3, "\(notShard.stderr)")
        for m in ["m1", "m2", "m3", "m4"] { #expect(!FileManager.default.fileExists(atPath: s.file(m))) }
    }
}
