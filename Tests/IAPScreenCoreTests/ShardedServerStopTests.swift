import Foundation
import IAPBasics
import PostgresClient
import PostgresTestSupport
import Testing

/// The server stopped in the middle of a sharded run (docs/ledger.md, docs/exit-codes.md): every
/// worker still at work ends with exit 3, none waits on for the others, nothing is put in place,
/// the ledger is as it was once the server is back, and the shards run again complete the run as
/// one unsharded run of the night would.
@Suite("A sharded run whose server stops, end to end", .serialized)
struct ShardedServerStopTests {
    @Test(
        "the server stopped while two workers wait for the third, still reading: all three exit 3, no reports, the ledger as it was once the server is back; the three run again complete the run as one unsharded run"
    )
    func stoppedWhileWaiting() throws {
        try TestServer.requireClusterPrograms(skipped: "this test, which stops a cluster of its own, is skipped")
        let n = try StoppedNight()
        defer { n.cluster.stop() }
        let workers = (1...StoppedNight.shards).map { n.worker($0) }
        // Shards 1 and 2, a few hundred orders each, stage and wait for shard 3, still reading its
        // 15,000. However long that takes: the cap only keeps a hang from hanging the test.
        let seen = try n.stopOnce(workers) { $0.joined == [1, 2, 3] && $0.staged.isSuperset(of: [1, 2]) }
        #expect(
            seen.joined == [1, 2, 3] && seen.staged == [1, 2],
            "stopped with shards \(seen.joined) joined, \(seen.staged) staged: shard 3 should be reading still")
        for (k, w) in workers.enumerated() { try n.expectStopped(w, shard: k + 1) }

        _ = try n.cluster.start()
        #expect(try LedgerRows.count(n.ledger) == n.before, "no claim, finding, event or run of the stopped night")
        try n.expectRunAgainCompletes()
    }

    @Test(
        "the server stopped after two workers handed over their parts, while the third writes its reports: those two are done, the third exits 3 with no reports, the ledger as it was once the server is back; the three run again complete the run as one unsharded run"
    )
    func stoppedAfterTwoHandedOver() throws {
        try TestServer.requireClusterPrograms(skipped: "this test, which stops a cluster of its own, is skipped")
        let n = try StoppedNight()
        defer { n.cluster.stop() }
        let workers = (1...StoppedNight.shards).map { n.worker($0) }
        // Shard 3 writes a finding for each of its thousands of orders long after 1 and 2 are done.
        let seen = try n.stopOnce(workers) { $0.finished.isSuperset(of: [1, 2]) }
        #expect(seen.finished == [1, 2], "shard 3 handed over before the server was stopped: give it more orders")
        // A worker that has handed over its part is done (docs/ledger.md): its reports are in
        // place, and the run's last worker was to put the night in the ledger.
        for k in 0..<2 {
            let run = try workers[k].wait()
            #expect(run.status == 0, "shard \(k + 1): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: n.scratch.file("s\(k + 1)/findings.jsonl")))
        }
        try n.expectStopped(workers[2], shard: 3)

        _ = try n.cluster.start()
        #expect(try LedgerRows.count(n.ledger) == n.before, "no claim, finding, event or run of the stopped night")
        // The staging and the shards' states are unlogged (PostgresShardTables): the restarted
        // server has forgotten the parts handed over too, and says that no shard has finished,
        // so every shard is run again.
        let status = try Tool.run(["ledger", "status", "--ledger", n.ledger])
        #expect(
            status.stdout.contains(
                "sharded run \(StoppedNight.runID) (3 shards) in progress: staged none, finished none, running now none"
            ),
            "\(status.stdout)")
        try n.expectRunAgainCompletes()
    }
}

/// A night of three shards on a cluster of the test's own, after a first night there, and the
/// same two nights screened unsharded on a fresh database of the test server: what the sharded
/// night must come to.
private final class StoppedNight {
    static let shards = 3
    static let runID = "night-2"
    let nights: Nights
    var scratch: Scratch { nights.scratch }
    let cluster: OwnCluster
    /// The cluster's ledger, and its rows after night one.
    let ledger: String
    let before: LedgerRows
    /// Night two unsharded after the same night one: its reports in `one`, its ledger's rows.
    let reference: LedgerRows

    init() throws {
        let nights = try Nights()
        self.nights = nights
        cluster = try OwnCluster()
        ledger = try cluster.start()
        let first = try Tool.run(nights.one(out: "n1", ledger: ledger))
        #expect(first.status == 0, "\(first.stderr)")
        // The test clusters commit without waiting for the WAL (synchronous_commit off): night
        // one is put on disk before its server is killed, as a real server's commit is.
        try PostgresConnection(uri: ledger).execute("CHECKPOINT")
        before = try LedgerRows.count(ledger)

        let single = try TestDatabase()
        for args in [nights.one(out: "one-n1", ledger: single.uri), nights.two(out: "one", ledger: single.uri)] {
            let r = try Tool.run(args)
            #expect(r.status == 0, "unsharded: \(r.stderr)")
        }
        reference = try LedgerRows.count(single.uri)
    }

    /// The two nights' arguments. Night one is the world's App Store orders alone; night two all
    /// its orders and store events (new claims, events and refunds for the ledger) and orders
    /// of shard 3 alone, so many that its worker reads long after the others have staged and
    /// writes its reports long after they have handed over.
    struct Nights {
        let world: SampleWorld
        let scratch: Scratch

        init() throws {
            world = try SampleWorld.shared.get()
            scratch = try Scratch()
            var rows = "order_id,user_id,item_id,platform,created_at\n"
            let spec = try #require(ShardSpec(index: StoppedNight.shards, count: StoppedNight.shards))
            var i = 0
            var added = 0
            while added < 15_000 {
                let order = "B-\(i)"
                if spec.owns(order) {
                    rows += "\(order),u\(i % 500),gems_100,ios,2024-03-05T10:\(String(format: "%02d", i % 60)):00Z\n"
                    added += 1
                }
                i += 1
            }
            try scratch.write("shard3-only.csv", rows)
        }

        func one(out: String, ledger: String) -> [String] {
            [
                "screen", "--rules", world.path + "/Rules", "--orders", world.orders[0], "--receipts", world.receipts,
                "--out", scratch.file(out), "--ledger", ledger, "--quiet",
            ]
        }

        func two(out: String, ledger: String, shard: Int? = nil) -> [String] {
            world.screenArguments(out: scratch.file(out), ledger: ledger, storeEvents: true)
                + ["--orders", scratch.file("shard3-only.csv"), "--quiet"]
                + (shard.map { ["--shard", "\($0)/\(StoppedNight.shards)", "--run-id", StoppedNight.runID] } ?? [])
        }
    }

    /// Shard `index`'s worker of night two, writing into `s<index>`. It is killed if it is still
    /// running after `TestServer.hangCap` (it ends by SIGKILL then), so a hang fails the test
    /// instead of outliving it.
    func worker(_ index: Int) -> AsyncRun {
        let args =
            ["--signal=KILL", "\(Int(TestServer.hangCap))", Tool.binary.path]
            + nights.two(out: "s\(index)", ledger: ledger, shard: index)
        return AsyncRun { try Tool.runProgram("/usr/bin/timeout", args) }
    }

    /// The shards that have joined, staged and handed over their part, as the run's state says.
    struct Seen {
        var joined: Set<Int> = []
        var staged: Set<Int> = []
        var finished: Set<Int> = []
    }

    /// Stops the server as soon as the run's state shows `moment`, or a worker has ended
    /// without handing over its part (the expectations then say what went wrong), or the hang
    /// cap is reached; gives what it saw last.
    func stopOnce(_ workers: [AsyncRun], _ moment: (Seen) -> Bool) throws -> Seen {
        let db = try PostgresConnection(uri: ledger)
        let cap = Date().addingTimeInterval(TestServer.hangCap)
        var seen = Seen()
        while true {
            // Asked before the state is read: a worker hands over before it ends.
            let ended = Set(workers.indices.filter { workers[$0].isDone }.map { $0 + 1 })
            if try db.query("SELECT to_regclass('iapscreen.shard_states') IS NOT NULL").bool(0, 0) == true {
                let r = try db.query(
                    "SELECT shard, staged, finished FROM iapscreen.shard_states WHERE run_id = $1",
                    [.text(Self.runID)])
                seen = Seen()
                for i in 0..<r.rowCount {
                    guard let shard = try r.int64(i, 0).flatMap({ Int(exactly: $0) }) else { continue }
                    seen.joined.insert(shard)
                    if try r.bool(i, 1) == true { seen.staged.insert(shard) }
                    if try r.bool(i, 2) == true { seen.finished.insert(shard) }
                }
            }
            if moment(seen) || !ended.isSubset(of: seen.finished) || Date() >= cap { break }
            usleep(10_000)
        }
        try cluster.crash()
        return seen
    }

    /// A worker the stopped server ended: exit 3 with libpq's words on the ledger, saying
    /// nothing was written (not a time-out waiting for the others), and no reports in its --out.
    func expectStopped(_ worker: AsyncRun, shard: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
    {
        let r = try worker.wait()
        let hung = r.bySignal && r.status == SIGKILL ? " (killed after \(Int(TestServer.hangCap)) s: it hung)" : ""
        #expect(r.status == 3, "shard \(shard)\(hung): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(
            r.stderr.contains("ledger postgres://postgres@127.0.0.1:")
                && r.stderr.contains("nothing written, ledger unchanged") && !r.stderr.contains("--shard-timeout"),
            "shard \(shard): \(r.stderr)", sourceLocation: sourceLocation)
        let out = scratch.file("s\(shard)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        #expect(left.isEmpty, "shard \(shard) left \(left) in its --out", sourceLocation: sourceLocation)
    }

    /// Every shard run again at once with the same run id: all exit 0, `merge` of their
    /// reports gives the unsharded night's findings.jsonl and flagged.csv byte for byte, and
    /// the ledger holds what the unsharded night's does.
    func expectRunAgainCompletes(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let reruns = (1...Self.shards).map { worker($0) }
        for (k, r) in reruns.enumerated() {
            let run = try r.wait()
            #expect(run.status == 0, "shard \(k + 1) run again: \(run.stderr)", sourceLocation: sourceLocation)
        }
        let merged = try Tool.run(
            ["merge", "--out", scratch.file("merged"), "--quiet"] + (1...Self.shards).map { scratch.file("s\($0)") })
        #expect(merged.status == 0, "\(merged.stderr)", sourceLocation: sourceLocation)
        try ShardedRunTests.expectSame(scratch.file("one"), scratch.file("merged"), sourceLocation: sourceLocation)
        #expect(
            try LedgerRows.count(ledger) == reference, "the ledger as one run leaves it", sourceLocation: sourceLocation
        )
    }
}
