import Foundation
import IAPBasics
import Ledger
import PostgresClient
import PostgresTestSupport
import Screening
import Testing

/// Workers of one sharded run meeting in the ledger's database: each its own connection,
/// as separate processes would be.
@Suite("A sharded run on the PostgreSQL ledger: joining, staging, waiting, committing once")
struct PostgresShardRunTests {
    static let at = Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false)

    static func staged(_ order: String) -> PostgresShardRun.StagedOrder {
        .init(orderID: order, userID: "u-" + order, createdAt: at, position: 0, catalog: nil, candidates: "k3:\(order)")
    }

    static func part(
        _ keys: [String], orders: Int, flagged: Int, consents: [RememberedConsent] = []
    ) -> RunRecord {
        RunRecord(
            startedAt: at, finishedAt: at, orders: orders, flagged: flagged,
            newClaims: keys.map { NewClaim(key: $0, claim: Claim(orderID: "o" + $0, userID: "u", createdAt: at)) },
            reported: keys.map { ("o" + $0, "replayed-transaction") }, consents: consents)
    }

    /// Shard k's word on the user all three shards have orders of: shard 2's is the latest.
    static func sharedUsersConsent(_ k: Int) -> RememberedConsent {
        RememberedConsent(
            userID: "shared", consented: k == 1, saidAt: Timestamp(clampingMillis: at.millis + [5, 9, 3][k]),
            orderID: "o\(k)00")
    }

    static func shard(_ i: Int, of n: Int) throws -> ShardSpec { try #require(ShardSpec(index: i, count: n)) }

    @Test("three workers at once: each sees the others' orders; the last to finish commits every part in one run")
    func threeWorkers() throws {
        let database = try TestDatabase()
        let uri = database.uri
        let seen = Failures()
        // Threads of their own (not Dispatch's, which runs two at a time on two cores: the
        // third would wait for the first two, and they for it).
        let done = DispatchGroup()
        for k in 0..<3 {
            done.enter()
            Thread {
                defer { done.leave() }
                Self.work(k, uri, seen)
            }.start()
        }
        done.wait()
        #expect(seen.all.isEmpty)
        let ledger = try PostgresLedger(uri: uri)
        #expect(try ledger.claims(of: ["000", "101", "201", "999"]).keys.sorted() == ["000", "101", "201"])
        #expect(try ledger.wasReported(orderID: "o200", rule: "replayed-transaction"))
        // Of one user's consents in three shards, the latest said stays, whichever shard said it.
        #expect(try ledger.consents(of: ["shared"])["shared"] == Self.sharedUsersConsent(1))
        let runs = try ledger.recentRuns(5)
        #expect(runs.count == 1 && runs.first?.orders == 6 && runs.first?.flagged == 3)
        let db = try PostgresConnection(uri: uri)
        for table in ["shard_orders", "shard_claims", "shard_reported", "shard_consents", "shard_states"] {
            #expect(try db.query("SELECT count(*) FROM iapscreen.\(table)").int64(0, 0) == 0, "\(table) is cleared")
        }
    }

    /// Shard k + 1 of 3: joins, stages two orders, waits, reads the others', finishes.
    static func work(_ k: Int, _ uri: String, _ seen: Failures) {
        do {
            let run = try PostgresShardRun(
                ledger: try PostgresLedger(uri: uri), runID: "night-1", shard: try shard(k + 1, of: 3),
                abandonedAfter: 3600)
            try run.stage([staged("a\(k)"), staged("b\(k)")])
            try run.waitForAll(timeout: TestServer.hangCap)
            let others = try run.othersOrders().map(\.orderID).sorted()
            let expected = (0..<3).filter { $0 != k }.flatMap { ["a\($0)", "b\($0)"] }.sorted()
            if others != expected { seen.add("shard \(k + 1) saw \(others)") }
            try run.finish(part(["\(k)00", "\(k)01"], orders: 2, flagged: 1, consents: [sharedUsersConsent(k)]))
        } catch {
            seen.add("shard \(k + 1): \(error)")
        }
    }

    @Test(
        "nothing reaches the ledger before the last shard finishes; a worker that died is run again and completes the run"
    )
    func killedAndRunAgain() throws {
        let database = try TestDatabase()
        let first = try PostgresShardRun(
            ledger: try PostgresLedger(uri: database.uri), runID: "n", shard: try Self.shard(1, of: 2),
            abandonedAfter: 3600)
        try first.stage([Self.staged("a")])
        do {
            // Shard 2 stages, then its process dies: its connection (and lock) go with it.
            let second = try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "n",
                shard: try Self.shard(2, of: 2), abandonedAfter: 3600)
            try second.stage([Self.staged("b")])
        }
        try first.waitForAll(timeout: TestServer.hangCap)
        #expect(try first.finish(Self.part(["1"], orders: 1, flagged: 0)) == false)
        #expect(try PostgresLedger(uri: database.uri).recentRuns(5).isEmpty)
        #expect(try PostgresLedger(uri: database.uri).claims(of: ["1"]).isEmpty)

        let again = try PostgresShardRun(
            ledger: try PostgresLedger(uri: database.uri), runID: "n", shard: try Self.shard(2, of: 2),
            abandonedAfter: 3600)
        try again.stage([Self.staged("b")])
        try again.waitForAll(timeout: TestServer.hangCap)
        #expect(try again.othersOrders().map(\.orderID) == ["a"])
        #expect(try again.finish(Self.part(["2"], orders: 1, flagged: 1)) == true)
        let ledger = try PostgresLedger(uri: database.uri)
        #expect(try ledger.claims(of: ["1", "2"]).count == 2)
        #expect(try ledger.recentRuns(5).map(\.orders) == [2])
        let named = try ledger.recentRuns(5).map { $0.sharded.map { "\($0.runID) \($0.shards)" } }
        #expect(named == ["n 2"], "the run is known by its run id")
    }

    @Test(
        "while a run is going on: another run id, an unsharded run and a second worker of a shard are refused as in use"
    )
    func refusedWhileInProgress() throws {
        let database = try TestDatabase()
        let run = try PostgresShardRun(
            ledger: try PostgresLedger(uri: database.uri), runID: "night-1", shard: try Self.shard(1, of: 2),
            abandonedAfter: 3600)
        try run.stage([Self.staged("a")])
        let other = #expect(throws: LedgerError.self) {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "night-2", shard: try Self.shard(1, of: 2),
                abandonedAfter: 3600)
        }
        #expect(other?.code == .inUse)
        // Who holds it: the run id, and each live worker's process and host.
        let worker = "iapscreen \(getpid())@"
        #expect(
            other?.message.contains("sharded run night-1: shard 1 by \(worker)") == true
                && other?.message.contains("running, shards 1 staged") == true, "\(other?.message ?? "")")
        let unsharded = #expect(throws: LedgerError.self) { try PostgresLedger(uri: database.uri).lockForRun() }
        #expect(
            unsharded?.code == .inUse
                && unsharded?.message.contains("sharded run night-1: shard 1 by \(worker)") == true)
        let twice = #expect(throws: LedgerError.self) {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "night-1", shard: try Self.shard(1, of: 2),
                abandonedAfter: 3600)
        }
        #expect(twice?.code == .inUse && twice?.message.contains("shard 1/2 of run night-1 is being run") == true)
        #expect(twice?.message.contains(": \(worker)") == true, "the worker that has the shard is named")
        let mismatch = #expect(throws: LedgerError.self) {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "night-1", shard: try Self.shard(2, of: 3),
                abandonedAfter: 3600)
        }
        #expect(mismatch?.code == .shardMismatch)
    }

    @Test("an unsharded run holding the ledger keeps a sharded one out")
    func unshardedFirst() throws {
        let database = try TestDatabase()
        let holder = try PostgresLedger(uri: database.uri)
        try holder.lockForRun()
        let refused = #expect(throws: LedgerError.self) {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "n", shard: try Self.shard(1, of: 1),
                abandonedAfter: 3600)
        }
        #expect(refused?.code == .inUse)
        withExtendedLifetime(holder) {}
    }

    @Test(
        "a shard that waits too long names the shards missing; a committed run id is not run again; an abandoned run is dropped"
    )
    func timeoutsAndEnds() throws {
        let database = try TestDatabase()
        do {
            let run = try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "slow", shard: try Self.shard(2, of: 3),
                abandonedAfter: 3600)
            try run.stage([Self.staged("a")])
            let late = #expect(throws: LedgerError.self) { try run.waitForAll(timeout: 0.5, poll: 0.05) }
            #expect(late?.code == .shardTimeout && late?.message.contains("shards 1, 3 of 3") == true)
        }
        // Its worker gone and silent for longer than the next run allows: dropped.
        try database.sql("UPDATE iapscreen.shard_runs SET touched = now() - interval '2 hours'")
        let next = try PostgresShardRun(
            ledger: try PostgresLedger(uri: database.uri), runID: "next", shard: try Self.shard(1, of: 1),
            abandonedAfter: 3600)
        try next.stage([Self.staged("b")])
        try next.waitForAll(timeout: TestServer.hangCap)
        #expect(try next.othersOrders().isEmpty)
        #expect(try next.finish(Self.part(["9"], orders: 1, flagged: 0)))
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT count(*) FROM iapscreen.shard_runs WHERE run_id = 'slow'").int64(0, 0) == 0)
        let again = #expect(throws: LedgerError.self) {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "next", shard: try Self.shard(1, of: 1),
                abandonedAfter: 3600)
        }
        #expect(again?.code == .shardMismatch && again?.message.contains("completed already") == true)
    }

    @Test(
        "a shard joined again keeps what it staged and handed over until it replaces them: the others read it whole, the commit has it"
    )
    func rejoinKeepsParts() throws {
        let database = try TestDatabase()
        func join(_ i: Int) throws -> PostgresShardRun {
            try PostgresShardRun(
                ledger: try PostgresLedger(uri: database.uri), runID: "n", shard: try Self.shard(i, of: 2),
                abandonedAfter: 3600)
        }
        let first = try join(1)
        try first.stage([Self.staged("a")])
        do {
            // Shard 2 stages and hands its part over, then dies before the run is committed.
            let second = try join(2)
            try second.stage([Self.staged("b")])
            try second.waitForAll(timeout: 60)
            #expect(try second.finish(Self.part(["2"], orders: 1, flagged: 0)) == false)
        }
        // Shard 2 is started again while shard 1 reads: shard 1 still sees its orders.
        let again = try join(2)
        try first.waitForAll(timeout: TestServer.hangCap)
        #expect(try first.othersOrders().map(\.orderID) == ["b"])
        #expect(try first.finish(Self.part(["1"], orders: 1, flagged: 0)) == true)
        #expect(
            try PostgresLedger(uri: database.uri).claims(of: ["1", "2"]).count == 2, "shard 2's part is in the run")
        // Its second worker, late, is told the run is over.
        let late = #expect(throws: LedgerError.self) { try again.finish(Self.part(["2"], orders: 1, flagged: 0)) }
        #expect(late?.code == .shardMismatch && late?.message.contains("completed meanwhile") == true)
    }
}
