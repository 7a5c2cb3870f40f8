import IAPBasics
import PostgresClient

#if canImport(Glibc)
    import Glibc
#endif

/// One worker's part in a sharded run (docs/ledger.md), coordinated through the ledger's
/// database: the worker joins the run, stages its orders as claiming needs them, waits until
/// every shard has, reads the others' orders (so it claims as one unsharded run would), and
/// when its reports are written hands over its part of what the run leaves in the ledger.
/// The worker that finishes last commits the run — every part merged into the ledger's
/// tables in one transaction — so a worker killed at any moment leaves the ledger as it was,
/// and running its shard again with the same run id completes the run.
///
/// While it lives, the worker holds a session advisory lock on (run, shard): the server
/// frees it when the worker dies, which is how the others tell a live shard from a dead one.
public final class PostgresShardRun {
    /// An order as claiming needs it; `candidates` is the screen's encoding of what it may take.
    public struct StagedOrder: Sendable, Equatable {
        public var orderID: String
        public var userID: String
        /// As the dump wrote it: with or without milliseconds.
        public var createdAt: Timestamp
        /// Its record's place in the night's inputs (ties of time go by it).
        public var position: Int64
        public var catalog: Int64?
        public var candidates: String
        /// What the server filters the others' reading by (`OthersFilter`), staged beside the
        /// row and not read back: the stable hashes of the keys it may take, whether it may
        /// take several, whether one of them holds a Google purchase token. The defaults keep
        /// the row in every reading.
        public var keyHashes: [Int64]?
        public var several: Bool
        public var holdsToken: Bool

        public init(
            orderID: String, userID: String, createdAt: Timestamp, position: Int64, catalog: Int64?, candidates: String,
            keyHashes: [Int64]? = nil, several: Bool = true, holdsToken: Bool = true
        ) {
            self.orderID = orderID
            self.userID = userID
            self.createdAt = createdAt
            self.position = position
            self.catalog = catalog
            self.candidates = candidates
            self.keyHashes = keyHashes
            self.several = several
            self.holdsToken = holdsToken
        }
    }

    /// Which of the other shards' staged orders a worker reads (the server leaves out the
    /// rest, so that what a worker reads falls with N). Each returns at least the rows the
    /// worker would keep of all of them; `tokens`: the worker looks for purchases holding
    /// Google tokens tonight's events name alone.
    public enum OthersFilter: Sendable {
        /// Every row.
        case every
        /// The rows that tie keys together: those that may take several, and (with `tokens`)
        /// those holding a token. Not the orders tonight's dump marks refunded.
        case linking(tokens: Bool)
        /// The rows that may take a key of these hashes, the orders marked refunded, and (with
        /// `tokens`) those holding a token.
        case tied(keyHashes: [Int64], tokens: Bool)
    }

    public let runID: String
    public let shard: ShardSpec
    /// Where this worker is in the run; every step below goes through one of its transitions.
    public private(set) var machine: ShardRunStateMachine
    private let ledger: PostgresLedger
    private var db: PostgresConnection { ledger.db }
    private var target: String { ledger.target }

    /// The run's classid in the shard locks (objsubid 2 in pg_locks): 31 bits of its id's hash.
    private var lockClass: Int64 { Int64(truncatingIfNeeded: ShardSpec.fnv1a64(runID) & 0x7FFF_FFFF) }

    /// Joins run `runID` as `shard`. Refused with `.inUse` while another run holds the ledger
    /// (an unsharded one, or another run id with a live shard or one that staged within
    /// `abandonedAfter` seconds; an older one is dropped, its staging with it), or while
    /// another worker runs this shard; with `.shardMismatch` when the run has another number
    /// of shards or was committed already.
    /// `splitDumps`: this worker reads its own shard's dumps alone; a run's workers all do, or
    /// none does (`.shardMismatch`).
    public init(
        ledger: PostgresLedger, runID: String, shard: ShardSpec, abandonedAfter: Double, splitDumps: Bool = false
    ) throws(LedgerError) {
        self.ledger = ledger
        self.runID = runID
        self.shard = shard
        machine = ShardRunStateMachine(runID: runID, shard: shard, target: ledger.target, splitDumps: splitDumps)
        var view = ShardRunStateMachine.JoinView(runShards: nil, runCommitted: false)
        /// Refuses now if what was seen so far refuses (a copy of the machine is asked), so
        /// that nothing more is done — the shard's lock not taken — for a refused worker.
        func refuseEarly() throws(LedgerError) {
            var probe = machine
            var seen = view
            if seen.runShards == nil { seen.runShards = Int64(shard.count) }  // not read yet
            do throws(LedgerError) {
                try probe.join(seen)
            } catch {
                machine = probe
                throw error
            }
        }
        try inTransaction(db, target) { () throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                try db.query("SELECT pg_advisory_xact_lock($1)", [.int64(PostgresSchema.migrationLock)])
                // Made once: CREATE INDEX, even IF NOT EXISTS, locks its table, and a worker
                // committing the run must not wait for a worker joining it.
                if try db.query("SELECT to_regclass('iapscreen.shard_runs') IS NULL").bool(0, 0) == true {
                    try db.execute(PostgresShardTables.create)
                } else {
                    // Made by an iapscreen before runs were named by their run id, or before
                    // dumps could be split by shard.
                    if try !PostgresShardRun.hasColumn(db, "shard_runs", "ledger_run") {
                        try db.execute(PostgresShardTables.addLedgerRun)
                    }
                    if try !PostgresShardRun.hasColumn(db, "shard_runs", "split_dumps") {
                        try db.execute(PostgresShardTables.addSplitDumps)
                    }
                    if try !PostgresShardRun.hasColumn(db, "shard_consents", "position") {
                        try db.execute(PostgresShardTables.addConsentPosition)
                    }
                    if try !PostgresShardRun.hasColumn(db, "shard_orders", "keys") {
                        try db.execute(PostgresShardTables.addOrderFilters)
                    }
                    if try db.query("SELECT to_regclass('iapscreen.shard_flagged') IS NULL").bool(0, 0) == true {
                        try db.execute(PostgresShardTables.createFlagged)
                    }
                }
            }
            // An unsharded run holds the run lock for all its length.
            let unsharded = try onServer(target) { () throws(PostgresError) -> String?? in
                guard try db.tryAdvisoryLock(PostgresRunLock.key) else { return .some(try PostgresRunLock.holder(db)) }
                _ = try db.advisoryUnlock(PostgresRunLock.key)
                return .none
            }
            if let holder = unsharded { view.unshardedHolder = .some(holder) }
            try refuseEarly()
            view.otherRun = try PostgresShardRun.runInProgress(ledger, except: runID, abandonedAfter: abandonedAfter)
            try refuseEarly()
            // Rows a committed run's last worker could not clear after its commit.
            try onServer(target) { () throws(PostgresError) in
                for table in PostgresShardTables.partTables {
                    try db.query(
                        """
                        DELETE FROM iapscreen.\(table) t USING iapscreen.shard_runs r
                        WHERE t.run_id = r.run_id AND r.committed IS NOT NULL
                        """)
                }
            }
            let registered = try onServer(target) { () throws(PostgresError) in
                try db.query(
                    """
                    INSERT INTO iapscreen.shard_runs(run_id, shards, split_dumps) VALUES ($1, $2, $3::boolean)
                    ON CONFLICT (run_id) DO NOTHING
                    """, [.text(runID), .int64(Int64(shard.count)), .text(splitDumps ? "true" : "false")]
                ).affectedRows == 1
            }
            // The desk's verdicts given before the run count in all of it, those given during it
            // from the next run: applied once, by the worker that makes the run's row, before
            // any worker has joined (a second one's insert waits for this transaction).
            if registered { _ = try ledger.applyDeskVerdicts() }
            let run = try onServer(target) { () throws(PostgresError) in
                try db.query(
                    """
                    SELECT shards, committed IS NOT NULL, split_dumps FROM iapscreen.shard_runs WHERE run_id = $1 FOR UPDATE
                    """, [.text(runID)])
            }
            let shards = try onServer(target) { () throws(PostgresError) in
                (try run.int64(0, 0), try run.bool(0, 1), try run.bool(0, 2))
            }
            view.runShards = shards.0
            view.runCommitted = shards.1 == true
            view.runSplitDumps = shards.2
            try refuseEarly()
            let taken = try onServer(target) { () throws(PostgresError) in
                try db.query(
                    "SELECT pg_try_advisory_lock($1::integer, $2::integer)",
                    [.int64(lockClass), .int64(Int64(shard.index))]
                ).bool(0, 0) == true
            }
            if !taken {
                let holder = try PostgresShardRun.liveWorkers(db, target, of: runID).first { $0.shard == shard.index }
                view.shardHeldBy = .some(holder?.worker)
            }
            try machine.join(view)
            // A shard run again keeps what its last worker staged or handed over until it
            // replaces it (each in one transaction): the others may be reading it, and the
            // same inputs stage the same rows.
            try onServer(target) { () throws(PostgresError) in
                try db.query(
                    """
                    INSERT INTO iapscreen.shard_states(run_id, shard, worker) VALUES ($1, $2, $3)
                    ON CONFLICT (run_id, shard) DO UPDATE SET worker = excluded.worker
                    """, [.text(runID), .int64(Int64(shard.index)), .text(PostgresRunLock.applicationName)])
                try touch()
            }
        }
    }

    /// `--shard-timeout`'s default, and how long an unsharded run takes a silent sharded run
    /// to be alive.
    public static let defaultTimeout: Double = 3600

    /// A sharded run not committed that is alive (a shard's worker running, or heard of
    /// within `abandonedAfter` seconds), described; abandoned ones are dropped, staging and all.
    static func runInProgress(
        _ ledger: PostgresLedger, except runID: String? = nil,
        abandonedAfter: Double
    ) throws(LedgerError) -> String? {
        let db = ledger.db
        let target = ledger.target
        let exists = try onServer(target) { () throws(PostgresError) in
            try db.query("SELECT to_regclass('iapscreen.shard_runs') IS NOT NULL").bool(0, 0) == true
        }
        guard exists else { return nil }
        let others = try onServer(target) { () throws(PostgresError) in
            try db.query(
                """
                SELECT run_id, extract(epoch FROM now() - touched)::bigint FROM iapscreen.shard_runs
                WHERE committed IS NULL AND run_id IS DISTINCT FROM $1
                """, [PostgresParameter(runID)])
        }
        for i in 0..<others.rowCount {
            let (other, idle) = try onServer(target) { () throws(PostgresError) in
                (try others.text(i, 0) ?? "", try others.int64(i, 1) ?? Int64.max)
            }
            let live = try liveWorkers(db, target, of: other)
            if !live.isEmpty || Double(idle) < abandonedAfter {
                let staged = try stagedShards(db, target, of: other)
                // Who to look for: each live worker's process and host, as it named itself.
                let running = live.map { "shard \($0.shard) by \($0.worker)" }.joined(separator: ", ")
                return "sharded run \(other): "
                    + (live.isEmpty ? "no worker is running now, " : "\(running) running, ")
                    + "shards \(staged.isEmpty ? "none" : list(staged)) staged, last heard of \(idle) s ago"
            }
            try onServer(target) { () throws(PostgresError) in
                for table in PostgresShardTables.partTables + ["shard_states", "shard_runs"] {
                    try db.query("DELETE FROM iapscreen.\(table) WHERE run_id = $1", [.text(other)])
                }
            }
        }
        return nil
    }

    /// Every sharded run not committed, as `ledger status` tells it (only reads): its shards,
    /// which have staged, finished and are running now, and when it was last heard of; one
    /// silent for longer than `abandonedAfter` and with no worker running is abandoned.
    public static func runsInProgress(_ ledger: PostgresLedger, abandonedAfter: Double = defaultTimeout)
        throws(LedgerError) -> [String]
    {
        let db = ledger.db
        let target = ledger.target
        let exists = try onServer(target) { () throws(PostgresError) in
            try db.query("SELECT to_regclass('iapscreen.shard_runs') IS NOT NULL").bool(0, 0) == true
        }
        guard exists else { return [] }
        let runs = try onServer(target) { () throws(PostgresError) in
            try db.query(
                """
                SELECT run_id, shards, extract(epoch FROM now() - touched)::bigint FROM iapscreen.shard_runs
                WHERE committed IS NULL ORDER BY started
                """)
        }
        var out: [String] = []
        for i in 0..<runs.rowCount {
            let (run, count, idle) = try onServer(target) { () throws(PostgresError) in
                (try runs.text(i, 0) ?? "", try runs.int64(i, 1) ?? 0, try runs.int64(i, 2) ?? 0)
            }
            let live = try liveWorkers(db, target, of: run)
            let staged = try stagedShards(db, target, of: run)
            let finished = try onServer(target) { () throws(PostgresError) in
                try shards(
                    try db.query(
                        "SELECT shard FROM iapscreen.shard_states WHERE run_id = $1 AND finished ORDER BY shard",
                        [.text(run)]))
            }
            let state = live.isEmpty && Double(idle) >= abandonedAfter ? "abandoned" : "in progress"
            func named(_ s: [Int]) -> String { s.isEmpty ? "none" : list(s) }
            let running = live.isEmpty ? "none" : live.map { "\($0.shard) (\($0.worker))" }.joined(separator: ", ")
            out.append(
                "sharded run \(run) (\(count) shards) \(state): staged \(named(staged)), finished \(named(finished)), "
                    + "running now \(running); last heard of \(idle) s ago")
        }
        return out
    }

    /// Whether `shard_runs` says which ledger run each committed sharded run became.
    static func hasLedgerRuns(_ db: PostgresConnection, _ target: String) throws(LedgerError) -> Bool {
        try onServer(target) { () throws(PostgresError) in try hasColumn(db, "shard_runs", "ledger_run") }
    }

    fileprivate static func hasColumn(_ db: PostgresConnection, _ table: String, _ column: String)
        throws(PostgresError) -> Bool
    {
        try db.query(
            """
            SELECT EXISTS (SELECT 1 FROM information_schema.columns
                           WHERE table_schema = 'iapscreen' AND table_name = $1 AND column_name = $2)
            """, [.text(table), .text(column)]
        ).bool(0, 0) == true
    }

    /// Shards of `run` whose worker holds its lock now, with the worker's name (`iapscreen
    /// PID@HOST`, as it joined) and its server process.
    static func liveWorkers(_ db: PostgresConnection, _ target: String, of run: String) throws(LedgerError)
        -> [(shard: Int, worker: String)]
    {
        try onServer(target) { () throws(PostgresError) in
            let r = try db.query(
                """
                SELECT DISTINCT l.objid::bigint, s.worker, l.pid FROM pg_locks l
                LEFT JOIN iapscreen.shard_states s ON s.run_id = $2 AND s.shard = l.objid::bigint
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid::bigint = $1
                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                ORDER BY 1
                """, [.int64(Int64(truncatingIfNeeded: ShardSpec.fnv1a64(run) & 0x7FFF_FFFF)), .text(run)])
            var out: [(shard: Int, worker: String)] = []
            for i in 0..<r.rowCount {
                guard let v = try r.int64(i, 0), let shard = Int(exactly: v) else { continue }
                let name = try r.text(i, 1).flatMap { $0.isEmpty ? nil : $0 } ?? "a worker without a name"
                let pid = try r.int64(i, 2).map(String.init) ?? "?"
                out.append((shard, "\(name) (server process \(pid))"))
            }
            return out
        }
    }

    private static func stagedShards(_ db: PostgresConnection, _ target: String, of run: String) throws(LedgerError)
        -> [Int]
    {
        try onServer(target) { () throws(PostgresError) in
            try PostgresShardRun.shards(
                try db.query(
                    "SELECT shard FROM iapscreen.shard_states WHERE run_id = $1 AND staged ORDER BY shard",
                    [.text(run)]))
        }
    }

    /// Column 0 of every row, as shard numbers.
    private static func shards(_ r: PostgresResult) throws(PostgresError) -> [Int] {
        var out: [Int] = []
        for i in 0..<r.rowCount {
            if let v = try r.int64(i, 0), let shard = Int(exactly: v) { out.append(shard) }
        }
        return out
    }

    private static func list(_ shards: [Int]) -> String { shards.map(String.init).joined(separator: ", ") }

    private func touch() throws(PostgresError) {
        try db.query("UPDATE iapscreen.shard_runs SET touched = now() WHERE run_id = $1", [.text(runID)])
    }

    /// This shard's staged orders, replaced by `stage` (its handed-over part stays: `finish` replaces that).
    private func clearStagedOrders() throws(LedgerError) {
        try onServer(target) { () throws(PostgresError) in
            try db.query(
                "DELETE FROM iapscreen.shard_orders WHERE run_id = $1 AND shard = $2",
                [.text(runID), .int64(Int64(shard.index))])
        }
    }

    /// Stages this shard's orders (replacing any staged before) and says the shard has.
    public func stage(_ orders: [StagedOrder]) throws(LedgerError) {
        try stage(count: orders.count) { orders[$0] }
    }

    /// The same, the orders made one at a time as they are sent: `order(i)` for each `i` in
    /// `0..<count`, nil for none (a night's orders are not held twice).
    public func stage(count: Int, _ order: (Int) -> StagedOrder?) throws(LedgerError) {
        try machine.staged()
        try inTransaction(db, target) { () throws(LedgerError) in
            try clearStagedOrders()
            try onServer(target) { () throws(PostgresError) in
                let copy = """
                    COPY iapscreen.shard_orders(run_id, shard, order_id, user_id, created_at, created_ms, position, catalog,
                        candidates, keys, several, has_token) FROM STDIN
                    """
                try db.copyIn(copy, count: count) { rows, i in
                    guard let o = order(i) else { return }
                    rows.add(runID)
                    rows.add(Int64(shard.index))
                    rows.add(o.orderID)
                    rows.add(o.userID)
                    rows.add(o.createdAt.millis)
                    rows.add(o.createdAt.hasMilliseconds ? "t" : "f")
                    rows.add(o.position)
                    rows.add(o.catalog)
                    rows.add(o.candidates)
                    rows.add(o.keyHashes.map { "{" + $0.map(String.init).joined(separator: ",") + "}" })
                    rows.add(o.several ? "t" : "f")
                    rows.add(o.holdsToken ? "t" : "f")
                    rows.endRow()
                }
                try db.query(
                    "UPDATE iapscreen.shard_states SET staged = true WHERE run_id = $1 AND shard = $2",
                    [.text(runID), .int64(Int64(shard.index))])
                try touch()
            }
        }
    }

    /// Waits until every shard has staged its orders; `.shardTimeout` naming the shards
    /// missing after `timeout` seconds.
    public func waitForAll(timeout: Double, poll: Double = 0.2) throws(LedgerError) {
        let start = SystemClock.monotonicSeconds()
        let deadline = start + timeout
        var lastTouch = start
        while true {
            let staged = Set(try PostgresShardRun.stagedShards(db, target, of: runID))
            let now = SystemClock.monotonicSeconds()
            if try machine.waited(stagedShards: staged, elapsed: now - start, timeout: timeout) { return }
            // Heard of now and then, so that a long wait is not taken for an abandoned run.
            if now - lastTouch > 30 {
                try onServer(target) { () throws(PostgresError) in try touch() }
                lastTouch = now
            }
            usleep(useconds_t(min(poll, max(deadline - now, 0.001)) * 1_000_000))
        }
    }

    /// The orders every other shard staged, in no particular order.
    public func othersOrders() throws(LedgerError) -> [StagedOrder] {
        var out: [StagedOrder] = []
        try readOthersOrders {
            out.append($0)
            return true
        }
        return out
    }

    /// The same, each handed to `take` as it is read, a batch at a time (a night's orders are
    /// not held twice); `take` returning false stops the reading there. `filter`: which rows
    /// the server sends (a row staged by an iapscreen before the filters is always sent).
    public func readOthersOrders(_ filter: OthersFilter = .every, _ take: (StagedOrder) -> Bool) throws(LedgerError) {
        try machine.mayReadOthers()
        try inTransaction(db, target) { () throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                var parameters: [PostgresParameter] = [.text(runID), .int64(Int64(shard.index))]
                var condition = ""
                switch filter {
                case .every: break
                case .linking(let tokens):
                    condition = "AND catalog IS DISTINCT FROM 2 AND (several OR ($3::boolean AND has_token))"
                    parameters.append(.text(tokens ? "t" : "f"))
                case .tied(let hashes, let tokens):
                    try db.temporaryColumn("tied", "h bigint", count: hashes.count) { $0.add(hashes[$1]) }
                    // In two steps: the rows a tied key meets, found by one join over the
                    // others' keys, then looked up by a hash of them. (Asked row by row, the
                    // planner joins the whole of `tied` for each row.)
                    try db.query(
                        """
                        CREATE TEMP TABLE hit ON COMMIT DROP AS SELECT DISTINCT x.shard, x.order_id
                        FROM iapscreen.shard_orders x CROSS JOIN LATERAL unnest(x.keys) AS k(h)
                        WHERE x.run_id = $1 AND x.shard <> $2 AND k.h IN (SELECT h FROM pg_temp.tied)
                        """, [.text(runID), .int64(Int64(shard.index))])
                    try db.execute("ANALYZE pg_temp.hit")
                    condition = """
                        AND (catalog = 2 OR keys IS NULL OR ($3::boolean AND has_token)
                             OR (shard, order_id) IN (SELECT shard, order_id FROM pg_temp.hit))
                        """
                    parameters.append(.text(tokens ? "t" : "f"))
                }
                try db.query(
                    """
                    DECLARE others NO SCROLL CURSOR FOR SELECT order_id, user_id, created_at, created_ms, position, catalog, candidates
                    FROM iapscreen.shard_orders WHERE run_id = $1 AND shard <> $2 \(condition)
                    """, parameters)
                while true {
                    let r = try db.query("FETCH 20000 FROM others")
                    guard r.rowCount > 0 else { break }
                    for i in 0..<r.rowCount {
                        guard let order = try r.text(i, 0), let user = try r.text(i, 1), let millis = try r.int64(i, 2),
                            let at = Timestamp(millis: millis, hasMilliseconds: try r.bool(i, 3) == true),
                            let position = try r.int64(i, 4), let candidates = try r.text(i, 6)
                        else {
                            throw PostgresError("a staged order of run \(runID) is not one a worker wrote")
                        }
                        let staged = StagedOrder(
                            orderID: order, userID: user, createdAt: at, position: position,
                            catalog: try r.int64(i, 5), candidates: candidates)
                        guard take(staged) else {
                            try db.execute("CLOSE others")
                            return
                        }
                    }
                }
                try db.execute("CLOSE others")
            }
        }
    }

    /// How many orders each of `users` has on the other shards (the orders tonight's dump
    /// marks refunded left out): `user.orders` without reading those orders. Users of none
    /// are not in it.
    public func countOthersOrders(ofUsers users: [String]) throws(LedgerError) -> [String: Int] {
        try machine.mayReadOthers()
        guard !users.isEmpty else { return [:] }
        return try inTransaction(db, target) { () throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                try db.temporaryColumn("counted", "u text COLLATE \"C\"", count: users.count) { $0.add(users[$1]) }
                let r = try db.query(
                    """
                    SELECT user_id, count(*) FROM iapscreen.shard_orders
                    WHERE run_id = $1 AND shard <> $2 AND catalog IS DISTINCT FROM 2 AND user_id IN (SELECT u FROM pg_temp.counted)
                    GROUP BY user_id
                    """, [.text(runID), .int64(Int64(shard.index))])
                var out: [String: Int] = [:]
                for i in 0..<r.rowCount {
                    guard let user = try r.text(i, 0), let n = try r.int64(i, 1), let count = Int(exactly: n) else {
                        throw PostgresError("a count of run \(runID)'s staged orders is not one the server gives")
                    }
                    out[user] = count
                }
                return out
            }
        }
    }

    /// Hands over this shard's part of the run (its new claims and reported findings; the
    /// store events' part when `part.events` and the rest are given) and, when every shard
    /// has, commits the run: true when this call did.
    @discardableResult
    public func finish(_ part: RunRecord) throws(LedgerError) -> Bool {
        // Moved on only once the transaction is: a failed hand-over leaves the worker ready.
        var next = machine
        let committed = try inTransaction(db, target) { () throws(LedgerError) in
            // The part first, beside the other finishers' (each its own shard's rows): only
            // what follows waits for the run's row.
            try clearFinishedPart()
            try copyPart(part)
            // Finishers one at a time from here: the last one sees every part (each statement
            // reads what the others committed before it got the row).
            let committed = try onServer(target) { () throws(PostgresError) in
                try db.query(
                    "SELECT committed IS NOT NULL FROM iapscreen.shard_runs WHERE run_id = $1 FOR UPDATE",
                    [.text(runID)]
                ).bool(0, 0)
            }
            do throws(LedgerError) {
                try next.handingOver(runCommitted: committed != false)
            } catch {
                machine = next
                throw error
            }
            let finished = try onServer(target) { () throws(PostgresError) in
                try db.query(
                    """
                    UPDATE iapscreen.shard_states SET finished = true, orders = $3, flagged = $4, started_at = $5, finished_at = $6
                    WHERE run_id = $1 AND shard = $2
                    """,
                    [
                        .text(runID), .int64(Int64(shard.index)), .int64(Int64(part.orders)),
                        .int64(Int64(part.flagged)),
                        .text(part.startedAt.iso8601), .text(part.finishedAt.iso8601),
                    ])
                try touch()
                return try db.query(
                    "SELECT count(*) FROM iapscreen.shard_states WHERE run_id = $1 AND finished",
                    [.text(runID)]
                ).int64(0, 0) ?? 0
            }
            guard try next.handedOver(finishedShards: Int(clamping: finished)) else { return false }
            try onServer(target) { () throws(PostgresError) in try commitRun() }
            return true
        }
        machine = next
        if committed { clearCommittedParts() }
        return committed
    }

    /// A committed run's staged rows, gone after its commit (not in it: the commit stays
    /// short). Nothing reads them once the run is committed; a failure here leaves them for
    /// the next sharded run's join.
    private func clearCommittedParts() {
        for table in PostgresShardTables.partTables {
            _ = try? db.query("DELETE FROM iapscreen.\(table) WHERE run_id = $1", [.text(runID)])
        }
    }

    /// A part handed over before by this shard (a worker run again after it finished).
    private func clearFinishedPart() throws(LedgerError) {
        try onServer(target) { () throws(PostgresError) in
            for table in PostgresShardTables.recordTables {
                try db.query(
                    "DELETE FROM iapscreen.\(table) WHERE run_id = $1 AND shard = $2",
                    [.text(runID), .int64(Int64(shard.index))])
            }
        }
    }

    /// This shard's part into the staging tables, in the columns `record` writes after
    /// (run id, shard), with the same row writers.
    private func copyPart(_ run: RunRecord) throws(LedgerError) {
        let runID = self.runID
        let index = Int64(shard.index)
        let (db, target) = (self.db, self.target)
        func into<Row>(
            _ table: String, _ columns: String, _ rows: RunRows<Row>,
            _ row: (inout PostgresCopyRows, Int64, Row) -> Void
        )
            throws(LedgerError)
        {
            try copyRows(db, target, "COPY iapscreen.\(table)(run_id, shard, \(columns)) FROM STDIN", rows) {
                out, n, r in
                out.add(runID)
                out.add(index)
                row(&out, n, r)
            }
        }
        try into(
            "shard_claims",
            "n, key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform",
            run.newClaims
        ) { out, n, claim in
            out.add(n)
            out.add(claim)
        }
        try into("shard_reported", "order_id, rule", run.reported) { out, _, f in out.add(f) }
        try into("shard_events", "n, identity, type", RunRows(run.events)) { out, n, e in
            out.add(n)
            out.add(e.identity)
            out.add(e.type)
        }
        try into(
            "shard_refunds", "n, key, refunded_at, event, reason, source, identity, reversed_at", RunRows(run.refunds)
        ) { out, n, r in
            out.add(n)
            out.add(r)
            out.add(r.reversedAt?.millis)
        }
        try into("shard_reversals", "key, at", RunRows(run.reversals)) { out, _, r in
            out.add(r.key)
            out.add(r.at.millis)
        }
        try into("shard_consents", "n, user_id, folded, consent, said_at, order_id, position", run.consents) {
            out, n, c in
            out.add(n)
            out.add(c)
            out.add(c.position)
        }
        try PostgresFlaggedOrders.copy(
            db, target, run.flaggedOrders, into: "iapscreen.shard_", leading: "run_id, shard, "
        ) {
            out in
            out.add(runID)
            out.add(index)
        }
    }

    /// Every part into the ledger's tables, merged as one unsharded run's record is, and the
    /// run's staging gone; inside `finish`'s transaction.
    private func commitRun() throws(PostgresError) {
        let id = PostgresParameter.text(runID)
        try db.execute(staging)
        try db.execute(sortInMemory)
        // Straight from the parts: the run's claims were decided over every shard at once,
        // so no key comes twice; one the ledger has keeps its first taker. In key order, as
        // the index takes them fastest (a third faster than in the parts' order).
        try db.query(
            """
            INSERT INTO iapscreen.claims(key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform)
            SELECT key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform
            FROM iapscreen.shard_claims WHERE run_id = $1 ORDER BY key
            ON CONFLICT (key) DO NOTHING
            """, [id])
        try db.query(
            "INSERT INTO pg_temp.night_reported SELECT order_id, rule FROM iapscreen.shard_reported WHERE run_id = $1",
            [id])
        try db.execute(mergeReported)
        let committed = try db.query(
            """
            INSERT INTO iapscreen.runs(started_at, finished_at, orders, flagged)
            SELECT min(started_at), max(finished_at), sum(orders), sum(flagged) FROM iapscreen.shard_states WHERE run_id = $1
            RETURNING id, finished_at
            """, [id])
        guard let run = try committed.int64(0, 0), let finishedAt = try committed.text(0, 1) else {
            throw PostgresError("the committed run \(runID) was given no id")
        }
        try db.query(
            """
            INSERT INTO pg_temp.night_events SELECT row_number() OVER (ORDER BY shard, n), identity, type
            FROM iapscreen.shard_events WHERE run_id = $1
            """, [id])
        try db.query(mergeEvents, [.int64(run)])
        try db.query(
            """
            INSERT INTO pg_temp.night_refunds SELECT row_number() OVER (ORDER BY shard, n), key, refunded_at, event, reason,
                source, identity FROM iapscreen.shard_refunds WHERE run_id = $1
            """, [id])
        try db.execute(mergeRefunds)
        try db.query(
            """
            INSERT INTO pg_temp.night_reversals
            SELECT key, reversed_at FROM iapscreen.shard_refunds WHERE run_id = $1 AND reversed_at IS NOT NULL
            UNION ALL SELECT key, at FROM iapscreen.shard_reversals WHERE run_id = $1
            """, [id])
        try db.execute(mergeReversals)
        // A user's orders may sit in several shards: the latest said of all of them stays, and
        // of two said at one time the later order's, as in one run (numbered so that
        // `mergeConsents` keeps the highest).
        try db.query(
            """
            INSERT INTO pg_temp.night_consents SELECT row_number() OVER (ORDER BY said_at, position, shard, n), user_id,
                folded, consent, said_at, order_id FROM iapscreen.shard_consents WHERE run_id = $1
            """, [id])
        try db.execute(mergeConsents)
        // The run's flagged orders reach the desk now, under the committed run, flagged when its
        // last shard finished. Each order is one shard's: `n` orders within it. Each worker
        // numbered its blocks from 0: the shard's number above them keeps them apart.
        try db.query(
            """
            INSERT INTO pg_temp.night_flagged(\(PostgresFlaggedOrders.orderColumns))
            SELECT n, order_id, user_id, platform, product_id, amount, currency, created_at, severity, rules,
                (shard::bigint << 32) | block
            FROM iapscreen.shard_flagged WHERE run_id = $1
            """, [id])
        try db.query(
            """
            INSERT INTO pg_temp.night_flagged_blocks(\(PostgresFlaggedOrders.blockColumns))
            SELECT (shard::bigint << 32) | n, data FROM iapscreen.shard_flagged_blocks WHERE run_id = $1
            """, [id])
        try db.query(
            """
            INSERT INTO pg_temp.night_flagged_keys(\(PostgresFlaggedOrders.keyColumns))
            SELECT \(PostgresFlaggedOrders.keyColumns) FROM iapscreen.shard_flagged_keys WHERE run_id = $1
            """, [id])
        try PostgresFlaggedOrders.merge(db, run: run, at: finishedAt)
        try db.query("DELETE FROM iapscreen.shard_states WHERE run_id = $1", [id])
        try db.query(
            "UPDATE iapscreen.shard_runs SET committed = now(), touched = now(), ledger_run = $2 WHERE run_id = $1",
            [id, .int64(run)])
    }
}
