import Foundation
import IAPBasics
import Screening
import Testing

@testable import Ledger

/// The desk's side of the ledger (CONTRACT §14), on both backends: what runs flag becomes the
/// queue; claims, notes and verdicts keep one decision per order with its author; the audit
/// trail keeps everything and changes nothing.
@Suite("Desk store")
struct DeskStoreTests {
    static let minute: Int64 = 60_000
    /// 2024-03-01T00:00:00Z
    static let t0: Int64 = 1_709_251_200_000

    static func flagged(
        _ id: String, severity: Int, rules: [String], user: String = "u1", keys: [String] = [], line: String = "{}"
    ) -> FlaggedOrderRecord {
        FlaggedOrderRecord(
            orderID: id, userID: user, platform: "ios", productID: "coins", amount: "4.99", currency: "USD",
            createdAt: "2024-02-29T10:00:00Z", severity: severity, rules: rules.sorted(), transactions: keys,
            receipt: #"[["kind","storekit2"]]"#,
            findings: rules.map { ($0, line.replacingOccurrences(of: "RULE", with: $0)) })
    }

    /// A run at `minute` minutes after t0 that flagged `orders`.
    static func run(_ minute: Int64, _ orders: [FlaggedOrderRecord], claims: [NewClaim] = []) -> RunRecord {
        RunRecord(
            startedAt: Timestamp(clampingMillis: t0 + minute * DeskStoreTests.minute - 30_000),
            finishedAt: Timestamp(clampingMillis: t0 + minute * DeskStoreTests.minute, hasMilliseconds: false),
            orders: orders.count, flagged: orders.count, newClaims: claims, reported: [], flaggedOrders: orders)
    }

    @Test(
        "a run's flagged orders become the queue: highest severity, then earliest flagged, then order id",
        arguments: LedgerBackend.available)
    func queueOrder(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(
            Self.run(
                1,
                [
                    Self.flagged("b", severity: 3, rules: ["replayed-transaction"]),
                    Self.flagged("c", severity: 1, rules: ["sandbox-receipt"]),
                ]))
        try ledger.record(
            Self.run(
                2,
                [
                    Self.flagged("a", severity: 3, rules: ["product-mismatch", "amount-mismatch"]),
                    Self.flagged("b", severity: 4, rules: ["forged-receipt"], line: #"{"rule":"RULE","x":"<b>"}"#),
                ]))
        let desk = try place.openDesk()
        let page = try desk.queue(QueueFilter(status: .all), now: Self.t0)
        #expect(page.orders.map(\.flagged.orderID) == ["b", "a", "c"])
        #expect(page.total == 3)
        #expect(page.next == nil)
        let b = try #require(page.orders.first)
        // The latest run's rules and severity; the first run's time stays.
        #expect(b.flagged.rules == ["forged-receipt"])
        #expect(b.flagged.severity == 4)
        #expect(b.flagged.firstFlaggedAt == "2024-03-01T00:01:00Z")
        #expect(b.flagged.lastFlaggedAt == "2024-03-01T00:02:00Z")
        #expect(page.orders[1].flagged.rules == ["amount-mismatch", "product-mismatch"])

        let dossier = try #require(try desk.dossier(of: "b", now: Self.t0))
        #expect(dossier.findings == [#"{"rule":"forged-receipt","x":"<b>"}"#])
        #expect(dossier.history.map(\.rules) == [["replayed-transaction"], ["forged-receipt"]])
        #expect(dossier.history.map(\.at) == ["2024-03-01T00:01:00Z", "2024-03-01T00:02:00Z"])
        #expect(dossier.version == 0)
        #expect(dossier.receipt == #"[["kind","storekit2"]]"#)
        #expect(try desk.dossier(of: "never-flagged", now: Self.t0) == nil)

        // Pages by cursor, every order once.
        let first = try desk.queue(QueueFilter(status: .all, limit: 2), now: Self.t0)
        #expect(first.orders.map(\.flagged.orderID) == ["b", "a"])
        #expect(first.total == 3)
        let second = try desk.queue(QueueFilter(status: .all, limit: 2, after: first.next), now: Self.t0)
        #expect(second.orders.map(\.flagged.orderID) == ["c"])
        #expect(second.next == nil)
    }

    @Test("filters: rule, severity, user, order and transaction id", arguments: LedgerBackend.available)
    func filters(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        try place.open().record(
            Self.run(
                1,
                [
                    Self.flagged(
                        "o1", severity: 3, rules: ["replayed-transaction"], user: "alice", keys: ["2000000001"]),
                    Self.flagged("o2", severity: 1, rules: ["sandbox-receipt"], user: "bob", keys: ["g:GPA.1234"]),
                    Self.flagged("o3", severity: 2, rules: ["replayed-transaction-x"], user: "bob"),
                ],
                claims: [
                    NewClaim(
                        key: "2000000001",
                        claim: Claim(orderID: "o0", userID: "alice", createdAt: Timestamp(clampingMillis: Self.t0)))
                ]))
        let desk = try place.openDesk()
        func ids(_ f: QueueFilter) throws -> [String] { try desk.queue(f, now: Self.t0).orders.map(\.flagged.orderID) }
        #expect(try ids(QueueFilter(rule: "replayed-transaction")) == ["o1"])
        #expect(try ids(QueueFilter(minimumSeverity: 2)) == ["o1", "o3"])
        #expect(try ids(QueueFilter(query: "bob")) == ["o3", "o2"])
        #expect(try ids(QueueFilter(query: "o2")) == ["o2"])
        #expect(try ids(QueueFilter(query: "GPA.1234")) == ["o2"])
        #expect(try ids(QueueFilter(query: "2000000001")) == ["o1"])
        #expect(try ids(QueueFilter(query: "2000")) == [])
        #expect(try desk.queue(QueueFilter(rule: "replayed-transaction"), now: Self.t0).total == 1)

        let o1 = try #require(try desk.dossier(of: "o1", now: Self.t0))
        #expect(
            o1.transactions == [
                TransactionTaker(key: "2000000001", takenBy: "o0", takenAt: "2024-03-01T00:00:00Z", alsoCreditedTo: [])
            ])
        #expect(o1.user.orders == ["o1"])
    }

    @Test(
        "one claim at a time: another's live claim is 409's holder, one's own extends, a lapsed one is free",
        arguments: LedgerBackend.available)
    func claims(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        try place.open().record(
            Self.run(1, [Self.flagged("o1", severity: 3, rules: ["r"]), Self.flagged("o2", severity: 2, rules: ["r"])]))
        let ann = try place.openDesk()
        let ben = try place.openDesk()
        let now = Self.t0 + 10 * Self.minute
        #expect(
            try ann.claim("o1", by: "ann", until: now + 30 * Self.minute, now: now)
                == .claimed(until: now + 30 * Self.minute, version: 1))
        #expect(
            try ben.claim("o1", by: "ben", until: now + 30 * Self.minute, now: now + 1)
                == .heldBy("ann", until: now + 30 * Self.minute))
        #expect(
            try ann.claim("o1", by: "ann", until: now + 40 * Self.minute, now: now + 2)
                == .claimed(until: now + 40 * Self.minute, version: 2))
        #expect(try ben.claim("nope", by: "ben", until: now, now: now) == .unknownOrder)
        // The queue: o1 claimed, o2 open; next gives ben the open one.
        #expect(try ben.queue(QueueFilter(status: .claimed), now: now).orders.map(\.flagged.orderID) == ["o1"])
        #expect(try ben.queue(QueueFilter(status: .open), now: now).orders.map(\.flagged.orderID) == ["o2"])
        // The queue's lengths: all 2, open 1 (o2), open at high severity or more 0 (o1 is claimed).
        #expect(try ben.queue(QueueFilter(status: .all), now: now).total == 2)
        #expect(try ben.queue(QueueFilter(status: .open), now: now).total == 1)
        #expect(try ben.queue(QueueFilter(status: .open, minimumSeverity: 3), now: now).total == 0)
        #expect(try ben.queue(QueueFilter(status: .all, minimumSeverity: 3), now: now).total == 1)
        #expect(try ben.queue(QueueFilter(status: .open), now: now + 41 * Self.minute).total == 2)
        #expect(
            try ben.queue(QueueFilter(status: .all, assignee: "ann"), now: now).orders.map(\.flagged.orderID) == ["o1"])
        let next = try #require(try ben.claimNext(by: "ben", until: now + 30 * Self.minute, now: now))
        #expect(next.orderID == "o2")
        #expect(try ann.claimNext(by: "ann", until: now + 30 * Self.minute, now: now) == nil)
        // Releases: not another's (unless a lead).
        #expect(try ben.release("o1", by: "ben", asLead: false, now: now) == .heldBy("ann"))
        #expect(try ben.release("o1", by: "lead", asLead: true, now: now) == .released)
        #expect(try ben.release("o1", by: "ben", asLead: false, now: now) == .notClaimed)
        // A lapsed claim is nobody's.
        let later = now + 31 * Self.minute
        #expect(
            try ann.claim("o2", by: "ann", until: later + Self.minute, now: later)
                == .claimed(until: later + Self.minute, version: 2))
    }

    @Test(
        "a verdict needs the version read and no other's claim; a run applies it, not the run before",
        arguments: LedgerBackend.available)
    func verdicts(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(Self.run(1, [Self.flagged("o1", severity: 3, rules: ["r"])]))
        let ann = try place.openDesk()
        let ben = try place.openDesk()
        let now = Self.t0 + 10 * Self.minute
        _ = try ann.claim("o1", by: "ann", until: now + 30 * Self.minute, now: now)
        #expect(
            try ben.giveVerdict("o1", verdict: "fraud", note: nil, by: "ben", version: 1, bulk: false, at: now)
                == .heldBy("ann"))
        #expect(try ben.addNote("o1", by: "ben", text: "looks <odd>", at: now) == 2)
        #expect(
            try ann.giveVerdict("o1", verdict: "legit", note: "ok", by: "ann", version: 1, bulk: false, at: now)
                == .staleVersion(current: 2, lastBy: "ben"))
        #expect(
            try ann.giveVerdict("o1", verdict: "legit", note: "ok", by: "ann", version: 2, bulk: false, at: now)
                == .recorded(replaced: nil, version: 3))
        #expect(
            try ben.giveVerdict("o1", verdict: "fraud", note: nil, by: "ben", version: 3, bulk: false, at: now + 1000)
                == .recorded(replaced: "legit", version: 4))
        let dossier = try #require(try ann.dossier(of: "o1", now: now))
        #expect(dossier.verdict?.verdict == "fraud")
        #expect(dossier.verdict?.by == "ben")
        #expect(dossier.notes == [DeskNote(by: "ben", at: "2024-03-01T00:10:00Z", text: "looks <odd>")])
        #expect(dossier.order.claimedBy == nil)
        #expect(try ann.queue(QueueFilter(status: .decided), now: now).orders.map(\.flagged.orderID) == ["o1"])
        // Not in the reviews a run reads until a run applies them, the later one winning.
        #expect(try ledger.review(of: "o1") == nil)
        #expect(try ledger.applyDeskVerdicts() == 2)
        #expect(try ledger.review(of: "o1")?.verdict == "fraud")
        #expect(try ledger.review(of: "o1")?.by == "ben")
        #expect(try ledger.applyDeskVerdicts() == 0)
    }

    @Test(
        "review's verdicts are the desk's too, with an audit entry; an older desk verdict does not undo them",
        arguments: LedgerBackend.available)
    func reviewCommand(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(Self.run(1, [Self.flagged("o1", severity: 3, rules: ["r"])]))
        let desk = try place.openDesk()
        _ = try desk.giveVerdict("o1", verdict: "fraud", note: nil, by: "ann", version: 0, bulk: false, at: Self.t0)
        try ledger.recordReview(
            orderID: "o1", Review(verdict: "legit", note: "refund was a mistake", by: "sam", at: "2024-03-01T01:00:00Z")
        )
        #expect(try ledger.applyDeskVerdicts() == 0)
        #expect(try ledger.review(of: "o1")?.verdict == "legit")
        let dossier = try #require(try desk.dossier(of: "o1", now: Self.t0))
        #expect(
            dossier.verdict
                == DeskVerdict(verdict: "legit", by: "sam", at: "2024-03-01T01:00:00Z", note: "refund was a mistake"))
        #expect(dossier.version == 2)
        let trail = try desk.audit(since: nil, afterID: 0, limit: 100)
        #expect(trail.map(\.action) == [.verdict, .review])
        #expect(trail.last?.detail == "legit, replacing none")
        #expect(trail.last?.user == "sam")
    }

    @Test(
        "a run told not to commit (its reports failed) leaves the ledger as it was, flagged orders and all",
        arguments: LedgerBackend.available)
    func notCommitted(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        let claim = NewClaim(
            key: "2000000009", claim: Claim(orderID: "o9", userID: "u9", createdAt: Timestamp(clampingMillis: Self.t0)))
        let run = Self.run(1, [Self.flagged("o9", severity: 3, rules: ["r"])], claims: [claim])
        #expect(throws: LedgerError.self) { try ledger.record(run, commitIf: { false }) }
        #expect(try ledger.counts().isEmpty)
        try ledger.record(run, commitIf: { true })
        #expect(try place.openDesk().queue(QueueFilter(status: .all), now: Self.t0).total == 1)
    }

    @Test(
        "an order reviewed before a run flags it comes into the queue decided, not open",
        arguments: LedgerBackend.available)
    func reviewedBeforeFlagged(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.recordReview(
            orderID: "o7", Review(verdict: "fraud", note: nil, by: "sam", at: "2024-03-01T01:00:00Z"))
        try ledger.record(
            Self.run(1, [Self.flagged("o7", severity: 2, rules: ["r"]), Self.flagged("o8", severity: 2, rules: ["r"])]))
        let desk = try place.openDesk()
        let open = try desk.queue(QueueFilter(status: .open), now: Self.t0)
        #expect(open.orders.map(\.flagged.orderID) == ["o8"])
        #expect(open.total == 1)
        #expect(try desk.queue(QueueFilter(status: .decided), now: Self.t0).orders.map(\.flagged.orderID) == ["o7"])
        #expect(try desk.claimNext(by: "ann", until: Self.t0 + Self.minute, now: Self.t0)?.orderID == "o8")
    }
    @Test(
        "a refusal changes nothing: the desk keeps no row of an order it never touched",
        arguments: LedgerBackend.available)
    func refusalsLeaveNothing(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        try place.open().record(Self.run(1, [Self.flagged("o1", severity: 3, rules: ["r"])]))
        let desk = try place.openDesk()
        #expect(try desk.release("o1", by: "ann", asLead: false, now: Self.t0) == .notClaimed)
        #expect(
            try desk.giveVerdict("o1", verdict: "fraud", note: nil, by: "ann", version: 7, bulk: false, at: Self.t0)
                == .staleVersion(current: 0, lastBy: nil))
        #expect(try place.open().counts().deskOrders == 0)
        #expect(try desk.audit(since: nil, afterID: 0, limit: 10).isEmpty)
    }

    @Test("users, sessions and failed logins; every change in the audit trail", arguments: LedgerBackend.available)
    func users(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let desk = try place.openDesk()
        let ann = DeskUser(
            name: "ann", role: .lead, passwordHash: "$argon2id$x", passwordSetAt: Self.t0, createdAt: Self.t0)
        #expect(try desk.addUser(ann, by: "root"))
        #expect(try desk.addUser(ann, by: "root") == false)
        #expect(try desk.user(named: "ann") == ann)
        try desk.startSession(idHash: "h1", user: "ann", csrf: "c1", at: Self.t0)
        #expect(try desk.session(idHash: "h1")?.user.name == "ann")
        #expect(try desk.session(idHash: "h1")?.csrf == "c1")
        try desk.touchSession(idHash: "h1", at: Self.t0 + 5000)
        #expect(try desk.session(idHash: "h1")?.seenAt == Self.t0 + 5000)
        #expect(try desk.setPassword(of: "ann", hash: "$argon2id$y", at: Self.t0 + 1, by: "ann"))
        #expect(try desk.session(idHash: "h1") == nil)
        try desk.startSession(idHash: "h2", user: "ann", csrf: "c2", at: Self.t0 + 2)
        #expect(try desk.setDisabled("ann", true, at: Self.t0 + 3, by: "root"))
        #expect(try desk.session(idHash: "h2") == nil)
        #expect(try desk.user(named: "ann")?.disabled == true)
        #expect(try desk.setDisabled("nobody", true, at: Self.t0, by: "root") == false)
        for i in 0..<3 { try desk.recordLoginFailure(of: "mallory", at: Self.t0 + Int64(i) * Self.minute) }
        #expect(
            try desk.loginFailures(of: "mallory", since: Self.t0 + 1)
                == LoginFailures(count: 2, last: Self.t0 + 2 * Self.minute))
        try desk.unlock("mallory", at: Self.t0 + 3 * Self.minute, by: "ann")
        #expect(try desk.loginFailures(of: "mallory", since: 0).count == 0)
        try desk.startSession(idHash: "h3", user: "ann", csrf: "c3", at: Self.t0 + 4)
        try desk.endSession(idHash: "h3", at: Self.t0 + 5, logout: "ann")
        #expect(try desk.session(idHash: "h3") == nil)
        let actions = try desk.audit(since: nil, afterID: 0, limit: 100).map(\.action)
        #expect(
            actions == [
                .userAdd, .login, .userPassword, .login, .userDisable, .loginFailed, .loginFailed, .loginFailed,
                .userUnlock, .login, .logout,
            ])
        #expect(try desk.audit(since: "2024-03-01T00:02:00Z", afterID: 0, limit: 100).first?.action == .loginFailed)
    }
}

@Suite("Desk store, SQLite")
struct SQLiteDeskStoreTests {
    @Test("the audit trail refuses to be changed or cut")
    func appendOnly() throws {
        let place = try LedgerPlace(.sqlite)
        let desk = try place.openDesk()
        try desk.unlock("x", at: DeskStoreTests.t0, by: "ann")
        let path = try #require((desk as? SQLiteDeskStore)?.path)
        #expect(throws: (any Error).self) { try rawSQL(path, "UPDATE desk_audit SET user = 'mallory'") }
        #expect(throws: (any Error).self) { try rawSQL(path, "DELETE FROM desk_audit") }
        #expect(try desk.audit(since: nil, afterID: 0, limit: 10).map(\.user) == ["ann"])
    }

    @Test("a schema-3 ledger's verdicts become the desk's when it is opened")
    func migratedReviews() throws {
        let scratch = try Scratch()
        let path = scratch.path("old.sqlite")
        _ = try SQLiteLedger(path: path)
        // Back to schema 3, as an iapscreen before the desk left it, with a verdict.
        try rawSQL(
            path,
            """
            DROP TRIGGER desk_audit_no_update; DROP TRIGGER desk_audit_no_delete;
            DROP TABLE flagged_orders; DROP TABLE flagged_history; DROP TABLE flagged_blocks; DROP TABLE flagged_keys;
            DROP TABLE desk_users;
            DROP TABLE desk_sessions; DROP TABLE desk_login_failures; DROP TABLE desk_orders; DROP TABLE desk_notes;
            DROP TABLE desk_verdicts; DROP TABLE desk_audit;
            INSERT INTO reviews VALUES ('o9', 'fraud', 'n', 'sam', '2024-01-01T00:00:00Z');
            PRAGMA user_version = 3;
            """)
        let ledger = try SQLiteLedger(path: path)
        #expect(try ledger.storedSchemaVersion() == 5)
        #expect(
            try rawColumn(path, "SELECT verdict || ' ' || verdict_by FROM desk_orders WHERE order_id = 'o9'") == [
                "fraud sam"
            ])
    }
}
