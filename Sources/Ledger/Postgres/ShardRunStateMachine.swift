import IAPBasics

/// One worker's way through a sharded run, as a value with named transitions: what the
/// worker may do next, and what it decides from what the database showed it. No I/O here:
/// `PostgresShardRun` reads the database, hands each transition what it saw, and does what
/// the transition says; the tests walk every transition alone.
///
///     joining ──join──▶ joined ──staged──▶ staged ──allStaged──▶ ready ──handedOver──▶ finished
///        │                 ▲                  │  ▲                  │                  (another commits)
///        │                 └──── staged ──────┘  └── stillWaiting   └──handedOver(last)─▶ committed
///        └──refused (in use, other shards, completed run)
///     any state but committed ──abandon──▶ abandoned     staged ──timedOut──▶ abandoned (exit 3)
///
/// A refusal or a time-out leaves the machine where the run cannot go on (`abandoned`):
/// the worker exits and nothing it staged is the ledger's.
public struct ShardRunStateMachine: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case joining
        case joined
        case staged
        case ready
        /// This shard's part is handed over; another shard commits the run.
        case finished
        /// This worker was the last to finish, and committed the run.
        case committed
        case abandoned
    }

    /// What the database showed a worker that joins: who else holds the ledger, and the run's row.
    public struct JoinView: Sendable, Equatable {
        /// An unsharded run holds the run lock: its session, as the server names it (nil: one
        /// this user cannot see).
        public var unshardedHolder: String??
        /// Another sharded run not committed that is alive, described.
        public var otherRun: String?
        /// The run's number of shards, as its first worker made it.
        public var runShards: Int64?
        public var runCommitted: Bool
        /// Whether the run's workers read dumps split by shard (`--split-dumps`), as its first
        /// worker said; nil: not read yet.
        public var runSplitDumps: Bool?
        /// Another worker holds this shard's lock: its name, when it left one.
        public var shardHeldBy: String??

        public init(
            unshardedHolder: String?? = .none, otherRun: String? = nil, runShards: Int64?, runCommitted: Bool,
            shardHeldBy: String?? = .none, runSplitDumps: Bool? = nil
        ) {
            self.runSplitDumps = runSplitDumps
            self.unshardedHolder = unshardedHolder
            self.otherRun = otherRun
            self.runShards = runShards
            self.runCommitted = runCommitted
            self.shardHeldBy = shardHeldBy
        }
    }

    public let runID: String
    public let shard: ShardSpec
    /// The ledger as messages name it.
    public let target: String
    /// This worker reads its own shard's dumps alone (`--split-dumps`).
    public let splitDumps: Bool
    public private(set) var state = State.joining

    public init(runID: String, shard: ShardSpec, target: String, splitDumps: Bool = false) {
        self.runID = runID
        self.shard = shard
        self.target = target
        self.splitDumps = splitDumps
    }

    /// joining -> joined, or a refusal: in use by an unsharded run, another live sharded run or
    /// another worker of this shard (`.inUse`); a run of another number of shards or one
    /// completed already (`.shardMismatch`).
    public mutating func join(_ view: JoinView) throws(LedgerError) {
        try expect(.joining, "join")
        do throws(LedgerError) {
            if case .some(let holder) = view.unshardedHolder {
                throw LedgerError(
                    "ledger \(target) is in use by another run: \(holder ?? "a session this user cannot see")",
                    code: .inUse)
            }
            if let other = view.otherRun {
                throw LedgerError("ledger \(target) is in use by \(other)", code: .inUse)
            }
            if view.runCommitted {
                throw LedgerError(
                    "run \(runID) of ledger \(target) was completed already; a new night needs a new --run-id",
                    code: .shardMismatch)
            }
            if view.runShards != Int64(shard.count) {
                throw LedgerError(
                    "run \(runID) of ledger \(target) has \(view.runShards.map(String.init) ?? "?") shards, "
                        + "not \(shard.count): every worker of a run gives the same --shard I/N", code: .shardMismatch)
            }
            if let split = view.runSplitDumps, split != splitDumps {
                throw LedgerError(
                    "run \(runID) of ledger \(target) is screened by workers given "
                        + (split ? "their own shard's dumps (--split-dumps)" : "every dump (no --split-dumps)")
                        + ": every worker of a run gives --split-dumps, or none does", code: .shardMismatch)
            }
            if case .some(let worker) = view.shardHeldBy {
                throw LedgerError(
                    "shard \(shard) of run \(runID) is being run by another worker on ledger \(target)"
                        + (worker.map { ": \($0)" } ?? ""),
                    code: .inUse)
            }
        } catch {
            state = .abandoned
            throw error
        }
        state = .joined
    }

    /// joined (or staged: a worker stages again what it replaces) -> staged.
    public mutating func staged() throws(LedgerError) {
        guard state == .joined || state == .staged else { throw misuse("stage") }
        state = .staged
    }

    /// What waiting for the other shards found: staged -> ready once every shard has staged
    /// (true), still staged while some have not and `elapsed` is within `timeout` (false),
    /// else abandoned with `.shardTimeout` naming the shards missing.
    public mutating func waited(stagedShards: Set<Int>, elapsed: Double, timeout: Double) throws(LedgerError) -> Bool {
        try expect(.staged, "wait for the other shards")
        let missing = (1...shard.count).filter { !stagedShards.contains($0) }
        if missing.isEmpty {
            state = .ready
            return true
        }
        guard elapsed >= timeout else { return false }
        state = .abandoned
        throw LedgerError(
            "run \(runID): shards \(missing.map(String.init).joined(separator: ", ")) of \(shard.count) have not "
                + "staged their orders after \(Int(timeout)) s (--shard-timeout)",
            code: .shardTimeout)
    }

    /// Whether the others' orders may be read now (every shard has staged).
    public func mayReadOthers() throws(LedgerError) { try expect(.ready, "read the other shards' orders") }

    /// ready -> about to hand over, unless the other shards completed the run meanwhile (with
    /// this shard's part from an earlier worker): then abandoned, `.shardMismatch`.
    public mutating func handingOver(runCommitted: Bool) throws(LedgerError) {
        guard state != .abandoned, state != .finished, state != .committed else { throw misuse("hand over its part") }
        // A worker joined again after its shard's part was in: told so whatever it got to.
        guard !runCommitted else {
            state = .abandoned
            throw LedgerError(
                "run \(runID) of ledger \(target) was completed meanwhile by the other shards (with this "
                    + "shard's part from its earlier worker); nothing written", code: .shardMismatch)
        }
        try expect(.ready, "hand over its part")
    }

    /// The part is handed over and `finishedShards` have: ready -> committed when that is
    /// every shard (this worker commits the run: true), else -> finished.
    public mutating func handedOver(finishedShards: Int) throws(LedgerError) -> Bool {
        try expect(.ready, "finish")
        state = finishedShards >= shard.count ? .committed : .finished
        return state == .committed
    }

    /// The worker gives up (an error, a signal): whatever it staged is left for a worker run
    /// again; nothing it did is the ledger's.
    public mutating func abandon() {
        if state != .committed { state = .abandoned }
    }

    private func expect(_ wanted: State, _ what: String) throws(LedgerError) {
        guard state == wanted else { throw misuse(what) }
    }

    /// A transition out of turn: the caller's bug, said as such rather than done.
    private func misuse(_ what: String) -> LedgerError {
        LedgerError(
            "shard \(shard) of run \(runID) cannot \(what) now (it is \(state)); nothing written",
            code: .shardMismatch)
    }
}
