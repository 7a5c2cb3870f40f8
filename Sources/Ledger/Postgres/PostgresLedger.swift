import IAPBasics
import PostgresClient
import Screening

/// The ledger in schema `iapscreen` of a PostgreSQL database (docs/ledger.md): the tables of
/// the SQLite ledger (`PostgresSchema`), one memory for several hosts. Same answers as
/// `SQLiteLedger`; every failure is a `LedgerError` with libpq's message, never a password.
public final class PostgresLedger: LedgerStore {
    let db: PostgresConnection
    /// Where the ledger is, for messages: `postgres://user@host:port/db`.
    public let target: String
    /// Read-only sessions look up through arrays only.
    private let readOnly: Bool
    private let lookupClaims: PostgresBulkLookup
    private let lookupTokens: PostgresBulkLookup
    private let lookupReported: PostgresStatement
    private let lookupReviews: PostgresBulkLookup
    private let lookupReportedMany: PostgresStatement
    private let lookupRefunds: PostgresBulkLookup
    private let lookupEvents: PostgresBulkLookup
    /// nil on a schema-2 ledger opened read-only: it has no consents.
    let lookupConsents: (byUser: PostgresBulkLookup, byFolded: PostgresBulkLookup)?
    /// Whether it has the desk's tables (not a ledger before schema 4 opened read-only).
    let hasDesk: Bool
    /// A schema 4 database opened read-only: its desk is in a shape this build neither reads nor copies.
    let unmigratedDesk: Bool

    /// The schema this build writes, and the newest it reads.
    public static let schemaVersion = PostgresSchema.current

    /// Connects with a libpq URI (password from it, PGPASSWORD or ~/.pgpass) and opens the
    /// ledger, creating schema `iapscreen` on first use. A newer schema, or a schema
    /// `iapscreen` that is no ledger, is refused before anything is written.
    ///
    /// `readOnly`: the session cannot write (the server refuses); nothing is created.
    /// `creating` false (review): a database without the ledger is `.empty`, not given one.
    public init(uri: String, readOnly: Bool = false, creating: Bool = true) throws(LedgerError) {
        let (db, target) = try PostgresLedger.connect(uri)
        let state = try PostgresSchema.inspect(db, target: target)
        if state == .empty, readOnly || !creating {
            throw LedgerError(
                "ledger \(target) is empty: no run has written it (no tables in schema iapscreen)",
                code: .empty)
        }
        if readOnly {
            try onServer(target) { () throws(PostgresError) in try db.execute("SET default_transaction_read_only = on")
            }
        } else if state != .current {
            try PostgresSchema.upgrade(db, target: target)
        }
        self.db = db
        self.target = target
        self.readOnly = readOnly
        hasDesk = !readOnly || state == .current
        unmigratedDesk = readOnly && state == .version4
        lookupConsents =
            readOnly && state == .version2
            ? nil
            : try onServer(target) { () throws(PostgresError) in
                (
                    try PostgresBulkLookup(
                        db, select: "c.user_id, consent, said_at, order_id", from: "iapscreen.consents", key: "user_id"
                    ),
                    // The latest said of the users whose folded ids match (two differing in case only).
                    try PostgresBulkLookup(
                        db, select: "DISTINCT ON (c.folded) c.folded, user_id, consent, said_at, order_id",
                        from: "iapscreen.consents", key: "folded", rest: "ORDER BY c.folded, c.said_at DESC, c.user_id")
                )
            }
        (lookupClaims, lookupTokens, lookupReported, lookupReviews, lookupReportedMany, lookupRefunds, lookupEvents) =
            try onServer(target) {
                () throws(PostgresError) in
                (
                    try PostgresBulkLookup(
                        db,
                        select: "c.key, order_id, user_id, created_at, product_id, amount, currency, "
                            + "purchase_token, platform", from: "iapscreen.claims", key: "key"),
                    // The first claim of a token: a subscription's renewals share it.
                    try PostgresBulkLookup(
                        db, select: "DISTINCT ON (c.purchase_token) c.purchase_token, c.key", from: "iapscreen.claims",
                        key: "purchase_token",
                        rest: "AND c.purchase_token IS NOT NULL ORDER BY c.purchase_token, c.created_at, c.key"),
                    try db.prepare(
                        "SELECT 1 FROM iapscreen.reported WHERE order_id = $1 AND rule = $2", [.text, .text]),
                    try PostgresBulkLookup(
                        db, select: "c.order_id, verdict, note, \"by\", at", from: "iapscreen.reviews", key: "order_id"),
                    // Pairs, matched whole: an order's other rules are not sent back.
                    try db.prepare(
                        "SELECT r.order_id, r.rule FROM iapscreen.reported r JOIN unnest($1::text[], $2::text[]) "
                            + "AS w(order_id, rule) ON r.order_id = w.order_id AND r.rule = w.rule",
                        [.textArray, .textArray]),
                    try PostgresBulkLookup(
                        db, select: "c.key, refunded_at, event, reason, source, identity, reversed_at",
                        from: "iapscreen.refunds", key: "key"),
                    try PostgresBulkLookup(
                        db, select: "c.identity, type, first_run", from: "iapscreen.store_events", key: "identity")
                )
            }
    }

    /// A connection to the ledger at `uri` and where it is, as messages name it; its search
    /// path is the ledger's schema (`PostgresSchema.searchPath`).
    static func connect(_ uri: String) throws(LedgerError) -> (PostgresConnection, target: String) {
        let db: PostgresConnection
        do {
            db = try PostgresConnection(uri: uri, applicationName: PostgresRunLock.applicationName)
        } catch {
            throw LedgerError("cannot open ledger: \(error.message)", code: .postgres)
        }
        let target = db.target.description
        try onServer(target) { () throws(PostgresError) in try db.execute(PostgresSchema.searchPath) }
        return (db, target)
    }

    /// Where `uri` points, as messages name it (`postgres://user@host:port/db`, never a
    /// password); a URI libpq cannot read is refused with libpq's reason.
    public static func target(of uri: String) throws(LedgerError) -> String {
        do {
            return try PostgresTarget(validating: uri).description
        } catch {
            throw LedgerError(error.message, code: .postgres)
        }
    }

    public func storedSchemaVersion() throws(LedgerError) -> Int {
        let version = try onServer(target) { () throws(PostgresError) in
            try db.query("SELECT version FROM iapscreen.schema_version").int64(0, 0)
        }
        guard let version, let v = Int(exactly: version) else {
            throw LedgerError("ledger \(target): iapscreen.schema_version holds no version", code: .unknownSchema)
        }
        return v
    }

    public func claims(of keys: [String]) throws(LedgerError) -> [String: Claim] {
        try lookUp(lookupClaims, keys) { r, i throws(PostgresError) in try PostgresLedger.claim(r, i) }
    }

    public func claimsWithDetails(of keys: [String]) throws(LedgerError) -> [String: (
        claim: Claim, details: ClaimDetails
    )] {
        try lookUp(lookupClaims, keys) { r, i throws(PostgresError) in
            try PostgresLedger.newClaim(r, i).map { ($0.claim, $0.details) }
        }
    }

    public func claimKeys(forTokens tokens: [String]) throws(LedgerError) -> [String: String] {
        try lookUp(lookupTokens, tokens) { r, i throws(PostgresError) in try r.text(i, 1) }
    }

    /// A claim with its details from columns key, order_id, user_id, created_at, product_id,
    /// amount, currency, purchase_token, platform; nil as for `claim`.
    static func newClaim(_ r: PostgresResult, _ i: Int) throws(PostgresError) -> NewClaim? {
        guard let key = try r.text(i, 0), let claim = try claim(r, i) else { return nil }
        return NewClaim(
            key: key, claim: claim,
            details: ClaimDetails(
                productID: try r.text(i, 4), amount: try r.text(i, 5),
                currency: try r.text(i, 6), purchaseToken: try r.text(i, 7),
                platform: try r.text(i, 8)))
    }

    /// A claim from columns 1-3 (order_id, user_id, created_at); nil for a row whose time is
    /// out of range (as the SQLite ledger does).
    static func claim(_ r: PostgresResult, _ i: Int) throws(PostgresError) -> Claim? {
        // Dumps mostly give whole seconds: a time kept without milliseconds prints as they wrote it.
        guard let order = try r.text(i, 1), let user = try r.text(i, 2), let millis = try r.int64(i, 3),
            let at = Timestamp(millis: millis, hasMilliseconds: millis % 1000 != 0)
        else { return nil }
        return Claim(orderID: order, userID: user, createdAt: at)
    }

    public func wasReported(orderID: String, rule: String) throws(LedgerError) -> Bool {
        try onServer(target) { () throws(PostgresError) in
            try lookupReported.run([.text(orderID), .text(rule)]).rowCount > 0
        }
    }

    public func review(of orderID: String) throws(LedgerError) -> Review? {
        try reviews(of: [orderID])[orderID]
    }

    public func reviews(of orderIDs: [String]) throws(LedgerError) -> [String: Review] {
        try lookUp(lookupReviews, orderIDs, PostgresLedger.review)
    }

    /// A verdict from columns 1-4 (verdict, note, by, at); column 0 is its order.
    static func review(_ r: PostgresResult, _ i: Int) throws(PostgresError) -> Review? {
        guard let verdict = try r.text(i, 1), let at = try r.text(i, 4) else { return nil }
        return Review(verdict: verdict, note: try r.text(i, 2), by: try r.text(i, 3), at: at)
    }

    public func reported(_ findings: [ReportedFinding]) throws(LedgerError) -> Set<ReportedFinding> {
        try onServer(target) { () throws(PostgresError) in
            var out: Set<ReportedFinding> = []
            var start = findings.startIndex
            while start < findings.endIndex {
                let end =
                    findings.index(start, offsetBy: PostgresBulkLookup.arrayLimit, limitedBy: findings.endIndex)
                    ?? findings.endIndex
                let part = findings[start..<end]
                let r = try lookupReportedMany.run([.textArray(part.map(\.orderID)), .textArray(part.map(\.rule))])
                for i in 0..<r.rowCount {
                    if let order = try r.text(i, 0), let rule = try r.text(i, 1) {
                        out.insert(ReportedFinding(orderID: order, rule: rule))
                    }
                }
                start = end
            }
            return out
        }
    }

    public func knows(orderID: String) throws(LedgerError) -> Bool {
        try onServer(target) { () throws(PostgresError) in
            try db.query(
                "SELECT EXISTS (SELECT 1 FROM iapscreen.reported WHERE order_id = $1) "
                    + "OR EXISTS (SELECT 1 FROM iapscreen.claims WHERE order_id = $1)", [.text(orderID)]
            ).bool(0, 0) == true
        }
    }

    public func recentRuns(_ count: Int) throws(LedgerError) -> [RecordedRun] {
        let sharded = try PostgresShardRun.hasLedgerRuns(db, target)
        return try onServer(target) { () throws(PostgresError) in
            // A sharded run's row is named by its run id (kept with the run it committed).
            let r = try db.query(
                sharded
                    ? """
                    SELECT r.id, r.started_at, r.finished_at, r.orders, r.flagged, s.run_id, s.shards
                    FROM iapscreen.runs r LEFT JOIN iapscreen.shard_runs s ON s.ledger_run = r.id
                    ORDER BY r.id DESC LIMIT $1
                    """
                    : "SELECT id, started_at, finished_at, orders, flagged FROM iapscreen.runs ORDER BY id DESC LIMIT $1",
                [.int64(Int64(clamping: max(count, 0)))])
            var runs: [RecordedRun] = []
            for i in 0..<r.rowCount {
                guard let id = try r.int64(i, 0), let started = try r.text(i, 1), let finished = try r.text(i, 2),
                    let orders = try r.int64(i, 3).flatMap({ Int(exactly: $0) }),
                    let flagged = try r.int64(i, 4).flatMap({ Int(exactly: $0) })
                else { continue }
                var run = RecordedRun(
                    id: id, startedAt: started, finishedAt: finished, orders: orders, flagged: flagged)
                if sharded, let runID = try r.text(i, 5), let shards = try r.int64(i, 6).flatMap({ Int(exactly: $0) }) {
                    run.sharded = .init(runID: runID, shards: shards)
                }
                runs.append(run)
            }
            return runs
        }
    }

    public func refunds(of keys: [String]) throws(LedgerError) -> [String: RememberedRefund] {
        try lookUp(lookupRefunds, keys, PostgresLedger.refund)
    }

    /// Every remembered refund, by key (cheaper than a lookup per key on a night that takes
    /// more keys than the ledger has refunds).
    public func allRefunds() throws(LedgerError) -> [String: RememberedRefund] {
        try onServer(target) { () throws(PostgresError) in
            let r = try db.query(
                "SELECT key, refunded_at, event, reason, source, identity, reversed_at FROM iapscreen.refunds")
            var out: [String: RememberedRefund] = [:]
            for i in 0..<r.rowCount {
                if let refund = try PostgresLedger.refund(r, i) { out[refund.key] = refund }
            }
            return out
        }
    }

    public func refundCount() throws(LedgerError) -> Int {
        try onServer(target) { () throws(PostgresError) in
            Int(clamping: try db.query("SELECT count(*) FROM iapscreen.refunds").int64(0, 0) ?? 0)
        }
    }

    /// A refund from columns key, refunded_at, event, reason, source, identity, reversed_at; nil
    /// for a time out of range (no refund we can reason about: left out, as a claim's is).
    static func refund(_ r: PostgresResult, _ i: Int) throws(PostgresError) -> RememberedRefund? {
        guard let key = try r.text(i, 0), let at = try r.int64(i, 1).flatMap({ Timestamp(millis: $0) }),
            let event = try r.text(i, 2), let identity = try r.text(i, 5)
        else { return nil }
        return RememberedRefund(
            key: key, refundedAt: at, event: event, reason: try r.text(i, 3), source: try r.text(i, 4),
            identity: identity, reversedAt: try r.int64(i, 6).flatMap { Timestamp(millis: $0) })
    }

    public func refundsPerUser() throws(LedgerError) -> [String: Int] {
        try onServer(target) { () throws(PostgresError) in
            let r = try db.query(
                "SELECT c.user_id, count(*) FROM iapscreen.refunds r JOIN iapscreen.claims c ON c.key = r.key "
                    + "GROUP BY c.user_id")
            var out: [String: Int] = [:]
            for i in 0..<r.rowCount {
                if let user = try r.text(i, 0), let n = try r.int64(i, 1) { out[user] = Int(clamping: n) }
            }
            return out
        }
    }

    public func knownEvents(_ identities: [String]) throws(LedgerError) -> Set<String> {
        Set(try lookUp(lookupEvents, identities) { _, _ throws(PostgresError) in () }.keys)
    }

    public func events(_ identities: [String]) throws(LedgerError) -> [String: RememberedEvent] {
        try lookUp(lookupEvents, identities, PostgresLedger.event)
    }

    /// An event from columns identity, type, first_run.
    static func event(_ r: PostgresResult, _ i: Int) throws(PostgresError) -> RememberedEvent? {
        guard let identity = try r.text(i, 0), let type = try r.text(i, 1) else { return nil }
        return RememberedEvent(identity: identity, type: type, firstRun: try r.int64(i, 2))
    }

    func lookUp<T>(
        _ lookup: PostgresBulkLookup, _ keys: [String],
        _ row: (PostgresResult, Int) throws(PostgresError) -> T?
    ) throws(LedgerError) -> [String: T] {
        try lookup.run(db, keys, canStage: !readOnly, target: target, row)
    }
}
