import Foundation
import IAPBasics
import PostgresClient
import PostgresTestSupport
import Screening
import Testing

@testable import Ledger

/// The desk on PostgreSQL, where several desk processes share one database: each decision on
/// an order is one desk's, every order handed out once; a sharded night reaches the queue when
/// its run commits.
@Suite("Desk store, PostgreSQL")
struct PostgresDeskStoreTests {
    static let now = DeskStoreTests.t0 + 10 * DeskStoreTests.minute
    static let until = now + 30 * DeskStoreTests.minute

    /// A ledger whose last run flagged `count` orders o0, o1, …, each with a note (so the desk
    /// has a row of each, at version 1, that the racers find there).
    static func flaggedLedger(_ count: Int) throws -> TestDatabase {
        let database = try TestDatabase()
        let orders = (0..<count).map { flaggedOrder("o\($0)", severity: $0 % 4, rules: ["r"]) }
        try PostgresLedger(uri: database.uri).record(night(flagged: orders))
        let desk = try PostgresDeskStore(uri: database.uri)
        for o in orders { _ = try desk.addNote(o.orderID, by: "lead", text: "look", at: DeskStoreTests.t0) }
        return database
    }

    /// `work(i)` on `count` threads of their own at once (not Dispatch's, which runs two at a
    /// time on two cores), each opening its own desk as a desk process would.
    static func atOnce(_ count: Int, _ uri: String, _ work: @escaping @Sendable (Int, PostgresDeskStore) throws -> Void)
        -> [String]
    {
        let failures = Failures()
        let done = DispatchGroup()
        for i in 0..<count {
            done.enter()
            Thread {
                defer { done.leave() }
                do { try work(i, try PostgresDeskStore(uri: uri)) } catch { failures.add("desk \(i): \(error)") }
            }.start()
        }
        done.wait()
        return failures.all
    }

    @Test("eight desks asking for the next order at once are handed every order once")
    func claimNextRace() throws {
        let database = try Self.flaggedLedger(40)
        let taken = Taken()
        let failures = Self.atOnce(8, database.uri) { i, desk in
            while let next = try desk.claimNext(by: "r\(i)", until: Self.until, now: Self.now) {
                guard case .claimed = next.outcome else { throw LedgerError("handed \(next) not claimed") }
                taken.add(next.orderID, by: "r\(i)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(taken.orders.sorted() == (0..<40).map { "o\($0)" }.sorted())
        let desk = try PostgresDeskStore(uri: database.uri)
        let claimed = try desk.queue(QueueFilter(status: .claimed, limit: 500), now: Self.now)
        #expect(claimed.total == 40)
        let holders = Dictionary(
            claimed.orders.map { ($0.flagged.orderID, $0.claimedBy ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(holders == taken.byOrder)
        #expect(try desk.audit(since: nil, afterID: 0, limit: 500).filter { $0.action == .claim }.count == 40)
    }

    @Test(
        "two reviewers deciding one order at once with the version they read: one verdict, the other told it is stale")
    func verdictRace() throws {
        let database = try Self.flaggedLedger(20)
        let outcomes = Outcomes()
        let failures = Self.atOnce(2, database.uri) { i, desk in
            for k in 0..<20 {
                let outcome = try desk.giveVerdict(
                    "o\(k)", verdict: i == 0 ? "fraud" : "legit", note: nil, by: "r\(i)", version: 1, bulk: false,
                    at: Self.now)
                outcomes.add("o\(k)", outcome)
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let desk = try PostgresDeskStore(uri: database.uri)
        for k in 0..<20 {
            let two = outcomes.of("o\(k)")
            let recorded = two.filter { $0 == .recorded(replaced: nil, version: 2) }
            let stale = two.filter { if case .staleVersion(current: 2, lastBy: _) = $0 { true } else { false } }
            #expect(recorded.count == 1 && stale.count == 1, "o\(k): \(two)")
            #expect(try desk.dossier(of: "o\(k)", now: Self.now)?.version == 2)
        }
        #expect(try PostgresLedger(uri: database.uri).applyDeskVerdicts() == 20)
        #expect(try desk.audit(since: nil, afterID: 0, limit: 500).filter { $0.action == .verdict }.count == 20)
    }

    @Test("two reviewers claiming one order at once: one holds it, the other is told who")
    func claimRace() throws {
        let database = try Self.flaggedLedger(10)
        let outcomes = ClaimOutcomes()
        let failures = Self.atOnce(2, database.uri) { i, desk in
            for k in 0..<10 {
                outcomes.add(try desk.claim("o\(k)", by: "r\(i)", until: Self.until, now: Self.now))
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let all = outcomes.all
        #expect(all.filter { if case .claimed(_, version: 2) = $0 { true } else { false } }.count == 10, "\(all)")
        #expect(all.filter { if case .heldBy = $0 { true } else { false } }.count == 10, "\(all)")
        // A refusal leaves nothing behind: one claim entry an order.
        let desk = try PostgresDeskStore(uri: database.uri)
        #expect(try desk.audit(since: nil, afterID: 0, limit: 100).filter { $0.action == .claim }.count == 10)
    }

    @Test("the audit trail refuses to be changed, cut or emptied")
    func appendOnly() throws {
        let database = try TestDatabase()
        _ = try PostgresLedger(uri: database.uri)
        let desk = try PostgresDeskStore(uri: database.uri)
        try desk.unlock("x", at: DeskStoreTests.t0, by: "ann")
        for sql in [
            #"UPDATE iapscreen.desk_audit SET "user" = 'mallory'"#, "DELETE FROM iapscreen.desk_audit",
            "TRUNCATE iapscreen.desk_audit",
        ] {
            #expect(throws: PostgresError.self) { try database.sql(sql) }
        }
        #expect(try desk.audit(since: nil, afterID: 0, limit: 10).map(\.user) == ["ann"])
    }

    @Test("a schema-3 ledger's verdicts become the desk's when it is opened")
    func migratedReviews() throws {
        let database = try TestDatabase()
        _ = try PostgresLedger(uri: database.uri)
        // Back to schema 3, as an iapscreen before the desk left it, with a verdict.
        try database.sql(
            PostgresDeskTablesDropped.sql + """
                INSERT INTO iapscreen.reviews VALUES ('o9', 'fraud', 'n', 'sam', '2024-01-01T00:00:00Z');
                UPDATE iapscreen.schema_version SET version = 3;
                """)
        #expect(throws: LedgerError.self) { try PostgresDeskStore(uri: database.uri) }
        #expect(try PostgresLedger(uri: database.uri, readOnly: true).counts().deskOrders == 0)
        #expect(try PostgresLedger(uri: database.uri).storedSchemaVersion() == 5)
        let db = try PostgresConnection(uri: database.uri)
        let row = try db.query("SELECT verdict || ' ' || verdict_by || ' ' || version FROM iapscreen.desk_orders")
        #expect(try row.text(0, 0) == "fraud sam 1")
    }

    static let at = Timestamp(clampingMillis: DeskStoreTests.t0, hasMilliseconds: false)

    /// One shard's part: one order, flagged.
    static func part(_ flagged: FlaggedOrderRecord) -> RunRecord {
        RunRecord(
            startedAt: at, finishedAt: at, orders: 1, flagged: 1, newClaims: [], reported: [],
            flaggedOrders: [flagged])
    }

    static func join(_ uri: String, shard: Int) throws -> PostgresShardRun {
        try PostgresShardRun(
            ledger: try PostgresLedger(uri: uri), runID: "night-2",
            shard: try #require(ShardSpec(index: shard, count: 2)),
            abandonedAfter: 3600)
    }

    @Test(
        "a sharded night reaches the queue when its run commits; the desk's verdicts count from the run's start, applied once"
    )
    func shardedNight() throws {
        let database = try TestDatabase()
        let uri = database.uri
        let ledger = try PostgresLedger(uri: uri)
        try ledger.record(night(flagged: [flaggedOrder("old", rules: ["r"])]))
        let desk = try PostgresDeskStore(uri: uri)
        _ = try desk.giveVerdict("old", verdict: "fraud", note: nil, by: "ann", version: 0, bulk: false, at: Self.now)

        let first = try Self.join(uri, shard: 1)
        // Applied by the worker that registered the run, before any worker reads a review.
        #expect(try ledger.review(of: "old")?.verdict == "fraud")
        // One given during the run waits for the next run, the second worker's join aside.
        _ = try desk.giveVerdict("old", verdict: "legit", note: nil, by: "ann", version: 1, bulk: false, at: Self.now)
        let second = try Self.join(uri, shard: 2)
        #expect(try ledger.review(of: "old")?.verdict == "fraud")

        try first.stage([PostgresShardRunTests.staged("a")])
        try second.stage([PostgresShardRunTests.staged("b")])
        try first.waitForAll(timeout: TestServer.hangCap)
        try second.waitForAll(timeout: TestServer.hangCap)
        #expect(try first.finish(Self.part(flaggedOrder("a", rules: ["r"], keys: ["1001"]))) == false)
        func queue() throws -> [String] {
            try desk.queue(QueueFilter(status: .all), now: Self.now).orders.map(\.flagged.orderID)
        }
        #expect(try queue() == ["old"])
        #expect(try second.finish(Self.part(flaggedOrder("b", severity: 4, rules: ["forged-receipt"]))) == true)
        #expect(try queue() == ["b", "a", "old"])

        let run = try #require(try ledger.recentRuns(1).first)
        let a = try #require(try desk.dossier(of: "a", now: Self.now))
        #expect(a.order.flagged.firstFlaggedAt == run.finishedAt && a.order.flagged.lastFlaggedAt == run.finishedAt)
        #expect(a.history.map(\.run) == [run.id] && a.findings == [#"{"rule":"r"}"#])
        #expect(a.transactions.map(\.key) == ["1001"])
        #expect(try ledger.applyDeskVerdicts() == 1 && ledger.review(of: "old")?.verdict == "legit")
        let db = try PostgresConnection(uri: uri)
        for table in ["shard_flagged", "shard_flagged_blocks", "shard_flagged_keys"] {
            #expect(try db.query("SELECT count(*) FROM iapscreen.\(table)").int64(0, 0) == 0, "\(table) is cleared")
        }
    }
}

/// SQL that takes a PostgreSQL ledger back to schema 3's tables (the version row aside).
enum PostgresDeskTablesDropped {
    static let sql = """
        DROP TABLE iapscreen.flagged_orders, iapscreen.flagged_history, iapscreen.flagged_blocks, iapscreen.flagged_keys,
            iapscreen.desk_users,
            iapscreen.desk_sessions, iapscreen.desk_login_failures, iapscreen.desk_orders, iapscreen.desk_notes,
            iapscreen.desk_verdicts, iapscreen.desk_audit;
        DROP FUNCTION iapscreen.desk_audit_append_only();
        DROP FUNCTION iapscreen.flagged_orders_history();
        """
}

/// Orders handed out, by whom, from several threads.
final class Taken: @unchecked Sendable {
    private let lock = NSLock()
    private var taken: [(order: String, by: String)] = []
    func add(_ order: String, by: String) { lock.withLock { taken.append((order, by)) } }
    var orders: [String] { lock.withLock { taken.map(\.order) } }
    var byOrder: [String: String] {
        lock.withLock { Dictionary(taken.map { ($0.order, $0.by) }, uniquingKeysWith: { a, _ in a }) }
    }
}

/// Verdict outcomes by order, from several threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [String: [VerdictOutcome]] = [:]
    func add(_ order: String, _ outcome: VerdictOutcome) {
        lock.withLock { outcomes[order, default: []].append(outcome) }
    }
    func of(_ order: String) -> [VerdictOutcome] { lock.withLock { outcomes[order] ?? [] } }
}

/// Claim outcomes, from several threads.
final class ClaimOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [ClaimOutcome] = []
    func add(_ outcome: ClaimOutcome) { lock.withLock { outcomes.append(outcome) } }
    var all: [ClaimOutcome] { lock.withLock { outcomes } }
}
