import IAPBasics
import Screening

/// A reviewer's verdict on an order, as the ledger keeps it.
public struct Review: Sendable, Equatable {
    public var verdict: String
    public var note: String?
    public var by: String?
    /// `YYYY-MM-DDTHH:MM:SSZ`
    public var at: String

    public init(verdict: String, note: String?, by: String?, at: String) {
        self.verdict = verdict
        self.note = note
        self.by = by
        self.at = at
    }
}

/// What a completed run leaves in the ledger, written in one transaction after the reports.
public struct RunRecord: Sendable {
    public var startedAt: Timestamp
    public var finishedAt: Timestamp
    public var orders: Int
    public var flagged: Int
    public var newClaims: [(key: String, claim: Claim)]
    /// (order id, rule) of every finding reported, so the next run can say `seen`.
    public var reported: [(orderID: String, rule: String)]

    public init(startedAt: Timestamp, finishedAt: Timestamp, orders: Int, flagged: Int,
                newClaims: [(key: String, claim: Claim)], reported: [(orderID: String, rule: String)]) {
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.orders = orders
        self.flagged = flagged
        self.newClaims = newClaims
        self.reported = reported
    }
}

/// The replay memory and review desk of iapscreen in one SQLite file.
///
///     claims(key PK, order_id, user_id, created_at ms)   first taker of each store transaction
///     reported(order_id, rule PK)                          findings reported by completed runs
///     reviews(order_id PK, verdict, note, by, at)          reviewers' decisions
///     runs(id PK, started_at, finished_at, orders, flagged)
public final class SQLiteLedger: ClaimLedger {
    let db: SQLiteDatabase
    public let path: String
    private let lookupClaim: SQLiteStatement
    private let lookupReported: SQLiteStatement
    private let lookupReview: SQLiteStatement

    static let schema = """
        CREATE TABLE IF NOT EXISTS claims(key TEXT PRIMARY KEY, order_id TEXT NOT NULL, user_id TEXT NOT NULL,
                                          created_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS reported(order_id TEXT NOT NULL, rule TEXT NOT NULL,
                                            PRIMARY KEY(order_id, rule)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS reviews(order_id TEXT PRIMARY KEY, verdict TEXT NOT NULL, note TEXT, by TEXT,
                                           at TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
                                        orders INTEGER NOT NULL, flagged INTEGER NOT NULL);
        """

    public init(path: String) throws(LedgerError) {
        self.path = path
        db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;")
        try db.execute(SQLiteLedger.schema)
        lookupClaim = try db.prepare("SELECT order_id, user_id, created_at FROM claims WHERE key = ?")
        lookupReported = try db.prepare("SELECT 1 FROM reported WHERE order_id = ? AND rule = ?")
        lookupReview = try db.prepare("SELECT verdict, note, by, at FROM reviews WHERE order_id = ?")
    }

    public func claims(of keys: [String]) throws -> [String: Claim] {
        try db.lookUp(lookupClaim, keys, SQLiteLedger.claim)
    }

    /// A claim from columns 0-2 (order_id, user_id, created_at); nil for a row whose time is
    /// out of range (as `claims(of:)` always did).
    private static func claim(_ s: SQLiteStatement) -> Claim? {
        guard let order = s.text(0), let user = s.text(1), let at = Timestamp(millis: s.int(2)) else { return nil }
        return Claim(orderID: order, userID: user, createdAt: at)
    }

    /// Whether an earlier completed run reported this finding.
    public func wasReported(orderID: String, rule: String) throws(LedgerError) -> Bool {
        lookupReported.bind(1, orderID)
        lookupReported.bind(2, rule)
        defer { lookupReported.reset() }
        return try lookupReported.step()
    }

    public func review(of orderID: String) throws(LedgerError) -> Review? {
        lookupReview.bind(1, orderID)
        defer { lookupReview.reset() }
        guard try lookupReview.step(), let verdict = lookupReview.text(0), let at = lookupReview.text(3) else { return nil }
        return Review(verdict: verdict, note: lookupReview.text(1), by: lookupReview.text(2), at: at)
    }

    /// Records a completed run: its new claims (the first taker stays), what it reported.
    public func record(_ run: RunRecord) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            let claim = try db.prepare("INSERT OR IGNORE INTO claims(key, order_id, user_id, created_at) VALUES (?, ?, ?, ?)")
            for (key, c) in run.newClaims.sorted(by: { $0.key < $1.key }) {
                claim.bind(1, key)
                claim.bind(2, c.orderID)
                claim.bind(3, c.userID)
                claim.bind(4, c.createdAt.millis)
                try claim.run()
            }
            let reported = try db.prepare("INSERT OR IGNORE INTO reported(order_id, rule) VALUES (?, ?)")
            for r in run.reported {
                reported.bind(1, r.orderID)
                reported.bind(2, r.rule)
                try reported.run()
            }
            let runRow = try db.prepare("INSERT INTO runs(started_at, finished_at, orders, flagged) VALUES (?, ?, ?, ?)")
            runRow.bind(1, run.startedAt.iso8601)
            runRow.bind(2, run.finishedAt.iso8601)
            runRow.bind(3, Int64(run.orders))
            runRow.bind(4, Int64(run.flagged))
            try runRow.run()
        }
    }

    /// Whether the ledger has seen this order: a completed run reported a finding on it, or it
    /// took a store transaction. (A finding is looked up by its key; a claim by a scan, which
    /// only `review` asks for.)
    public func knows(orderID: String) throws(LedgerError) -> Bool {
        let stmt = try db.prepare("SELECT 1 WHERE EXISTS (SELECT 1 FROM reported WHERE order_id = ?1) "
            + "OR EXISTS (SELECT 1 FROM claims WHERE order_id = ?1)")
        stmt.bind(1, orderID)
        return try stmt.step()
    }

    /// Records (or replaces) a reviewer's verdict.
    public func recordReview(orderID: String, _ review: Review) throws(LedgerError) {
        let stmt = try db.prepare("INSERT OR REPLACE INTO reviews(order_id, verdict, note, by, at) VALUES (?, ?, ?, ?, ?)")
        stmt.bind(1, orderID)
        stmt.bind(2, review.verdict)
        stmt.bind(3, review.note)
        stmt.bind(4, review.by)
        stmt.bind(5, review.at)
        try stmt.run()
    }
}
