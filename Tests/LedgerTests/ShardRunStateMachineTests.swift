import IAPBasics
import Ledger
import Testing

/// A sharded run's worker, one transition at a time, without a database.
@Suite("A shard's way through a run: the state machine's transitions")
struct ShardRunStateMachineTests {
    static func machine(_ index: Int = 1, of count: Int = 3) throws -> ShardRunStateMachine {
        ShardRunStateMachine(
            runID: "night-1", shard: try #require(ShardSpec(index: index, count: count)), target: "postgres://db")
    }

    static let clear = ShardRunStateMachine.JoinView(runShards: 3, runCommitted: false)

    static func ready() throws -> ShardRunStateMachine {
        var m = try machine()
        try m.join(clear)
        try m.staged()
        _ = try m.waited(stagedShards: [1, 2, 3], elapsed: 0, timeout: 60)
        return m
    }

    @Test("join: a run of the same shards, nobody else on the ledger, the shard free: joined")
    func joins() throws {
        var m = try Self.machine()
        try m.join(Self.clear)
        #expect(m.state == .joined)
    }

    @Test("join is refused while an unsharded run holds the ledger, naming its session")
    func refusedByUnsharded() throws {
        var m = try Self.machine()
        var view = Self.clear
        view.unshardedHolder = .some("iapscreen 42@host (server process 7)")
        let error = #expect(throws: LedgerError.self) { try m.join(view) }
        #expect(error?.code == .inUse && error?.message.contains("iapscreen 42@host") == true)
        #expect(m.state == .abandoned)
        var unseen = try Self.machine()
        view.unshardedHolder = .some(nil)
        let hidden = #expect(throws: LedgerError.self) { try unseen.join(view) }
        #expect(hidden?.message.contains("a session this user cannot see") == true)
    }

    @Test("join is refused while another sharded run is alive, as the database described it")
    func refusedByOtherRun() throws {
        var m = try Self.machine()
        var view = Self.clear
        view.otherRun = "sharded run night-0: shard 2 by iapscreen 9@h (server process 3) running"
        let error = #expect(throws: LedgerError.self) { try m.join(view) }
        #expect(
            error?.code == .inUse && error?.message.contains("sharded run night-0: shard 2 by iapscreen 9@h") == true)
    }

    @Test("join is refused when the run's workers read their dumps otherwise (--split-dumps on some, not all)")
    func refusedSplitDumps() throws {
        var whole = try Self.machine()
        var view = Self.clear
        view.runSplitDumps = true
        let error = #expect(throws: LedgerError.self) { try whole.join(view) }
        #expect(error?.code == .shardMismatch && error?.message.contains("their own shard's dumps") == true)
        var split = ShardRunStateMachine(
            runID: "night-1", shard: try #require(ShardSpec(index: 2, count: 3)), target: "postgres://db",
            splitDumps: true)
        try split.join(view)
        #expect(split.state == .joined)
    }

    @Test("join is refused for a completed run and for another number of shards")
    func refusedRun() throws {
        var done = try Self.machine()
        let completed = #expect(throws: LedgerError.self) {
            try done.join(.init(runShards: 3, runCommitted: true))
        }
        #expect(completed?.code == .shardMismatch && completed?.message.contains("completed already") == true)
        var other = try Self.machine()
        let mismatch = #expect(throws: LedgerError.self) { try other.join(.init(runShards: 4, runCommitted: false)) }
        #expect(mismatch?.code == .shardMismatch && mismatch?.message.contains("has 4 shards, not 3") == true)
    }

    @Test("join is refused while another worker runs the shard, naming it")
    func refusedShard() throws {
        var m = try Self.machine(2)
        var view = Self.clear
        view.shardHeldBy = .some("iapscreen 77@h2 (server process 5)")
        let error = #expect(throws: LedgerError.self) { try m.join(view) }
        #expect(error?.code == .inUse)
        #expect(
            error?.message
                == "shard 2/3 of run night-1 is being run by another worker on ledger postgres://db: iapscreen 77@h2 (server process 5)"
        )
    }

    @Test("staged: after joining, and again (a worker stages anew what it replaces); never before joining")
    func stages() throws {
        var early = try Self.machine()
        #expect(throws: LedgerError.self) { try early.staged() }
        var m = try Self.machine()
        try m.join(Self.clear)
        try m.staged()
        try m.staged()
        #expect(m.state == .staged)
    }

    @Test("waiting: ready once every shard has staged, waiting while some have not, a time-out names the missing")
    func waits() throws {
        var m = try Self.machine()
        #expect(throws: LedgerError.self) { _ = try m.waited(stagedShards: [1, 2, 3], elapsed: 0, timeout: 1) }
        try m.join(Self.clear)
        try m.staged()
        #expect(try m.waited(stagedShards: [1], elapsed: 5, timeout: 60) == false)
        #expect(m.state == .staged)
        let timedOut = #expect(throws: LedgerError.self) {
            _ = try m.waited(stagedShards: [1, 3], elapsed: 60, timeout: 60)
        }
        #expect(timedOut?.code == .shardTimeout && timedOut?.message.contains("shards 2 of 3 have not staged") == true)
        #expect(m.state == .abandoned)
        let n = try Self.ready()
        #expect(n.state == .ready)
        try n.mayReadOthers()
    }

    @Test("the others' orders are read only once every shard has staged")
    func readsOthers() throws {
        var m = try Self.machine()
        try m.join(Self.clear)
        try m.staged()
        #expect(throws: LedgerError.self) { try m.mayReadOthers() }
        try Self.ready().mayReadOthers()
    }

    @Test(
        "handing over: refused when the others completed the run meanwhile; the last to finish commits, the rest finish"
    )
    func handsOver() throws {
        var late = try Self.ready()
        let error = #expect(throws: LedgerError.self) { try late.handingOver(runCommitted: true) }
        #expect(error?.code == .shardMismatch && late.state == .abandoned)
        var first = try Self.ready()
        try first.handingOver(runCommitted: false)
        #expect(try first.handedOver(finishedShards: 2) == false)
        #expect(first.state == .finished)
        var last = try Self.ready()
        #expect(try last.handedOver(finishedShards: 3) == true)
        #expect(last.state == .committed)
        #expect(throws: LedgerError.self) { _ = try last.handedOver(finishedShards: 3) }
    }

    @Test("abandon: from anywhere but a committed run")
    func abandons() throws {
        var m = try Self.ready()
        m.abandon()
        #expect(m.state == .abandoned)
        var last = try Self.ready()
        _ = try last.handedOver(finishedShards: 3)
        last.abandon()
        #expect(last.state == .committed)
    }
}
