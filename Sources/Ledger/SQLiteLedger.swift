import IAPBasics
import Screening

#if canImport(Glibc)
    import Glibc
#endif

/// The replay memory and review desk of iapscreen in one SQLite file (schema 4, see
/// `LedgerSchema`; an older file is migrated on open). The desk's tables (flagged_orders, …,
/// desk_audit) are `SQLiteFlaggedWriter`'s and `LedgerDeskStore`'s.
///
///     claims(key PK, order_id, user_id, created_at ms,      first taker of each store transaction,
///            product_id, amount, currency,                   what it bought,
///            purchase_token, platform)                       and Google's token (indexed)
///     reported(order_id, rule PK)                          findings reported by completed runs
///     reviews(order_id PK, verdict, note, by, at)          reviewers' decisions
///     runs(id PK, started_at, finished_at, orders, flagged)
///     store_events(identity PK, type, first_run)           every distinct store event read
///     refunds(key PK, refunded_at ms, event, reason,       the earliest refund of each claim key,
///             source, identity, reversed_at ms)            and when Apple reversed it
///     consents(user_id PK, folded, consent,               each user's latest consent (§13),
///              said_at ms, order_id)                       by user and by case-folded user id
public final class SQLiteLedger {
    let db: LedgerFile
    public let path: String
    private let lookupClaim: LedgerStatement
    private let lookupClaimDetails: LedgerStatement
    /// nil on a schema-0 file opened read-only: it has no such column or table.
    private let lookupToken: LedgerStatement?
    private let lookupReported: LedgerStatement
    private let lookupReview: LedgerStatement
    let lookupRefund: LedgerStatement?
    let lookupEvent: LedgerStatement?
    /// nil on a file before schema 3 opened read-only.
    let lookupConsent: LedgerStatement?
    let lookupConsentFolded: LedgerStatement?
    /// Whether the file has schema 4's desk tables (not one before it opened read-only).
    let hasDesk: Bool
    /// A schema 4 file opened read-only: its desk is in a shape this build neither reads nor copies.
    let unmigratedDesk: Bool

    /// The schema this build writes, and the newest it reads.
    public static let schemaVersion = Int(LedgerSchema.current)

    /// Opens (creating or migrating) the ledger. A file of a newer schema, or one that is no
    /// iapscreen ledger, is refused before anything is written to it.
    ///
    /// `readOnly` (explain): nothing is created (not even a `-wal` or `-shm` beside the file),
    /// migrated or written; a schema-0 file is read as it is (its claims without details, no
    /// events or refunds remembered), and so is a schema-2 file (no consents remembered).
    /// `creating` false (review): a ledger that is not there yet is `.empty`, not created.
    public init(path: String, readOnly: Bool = false, creating: Bool = true) throws(LedgerError) {
        self.path = path
        if readOnly || !creating, access(path, F_OK) != 0, errno == ENOENT {
            throw LedgerError("there is no ledger at \(path): no run has written it", code: .empty)
        }
        db = try LedgerFile(path: path, readOnly: readOnly, creating: creating && !readOnly)
        let state: LedgerSchema.State
        do throws(LedgerError) {
            state = try LedgerSchema.inspect(db, path: path)
        } catch  where error.code == .sqlite {
            // e.g. not a database at all: SQLite says so at the first read.
            throw LedgerError("cannot open ledger \(path): \(db.lastError)")
        }
        if state == .empty, readOnly || !creating {
            throw LedgerError("ledger \(path) is empty: no run has written it", code: .empty)
        }
        let details: String
        if readOnly {
            details =
                state == .current || state == .version3 || state == .version4
                ? "product_id, amount, currency, purchase_token, platform"
                : "NULL, NULL, NULL, NULL, NULL"
        } else {
            // temp_store: the statement journal of an upsert inside the night's transaction (the
            // flagged orders') stays in memory; in a file it was 1.3 million pwrite calls and
            // a second of system time a night of 10⁵ flagged orders.
            try db.execute(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;"
            )
            if state != .current { try LedgerSchema.upgrade(db, path: path, from: state) }
            details = "product_id, amount, currency, purchase_token, platform"
        }
        let remembers = !readOnly || state == .current || [.version2, .version3, .version4].contains(state)
        let consents = !readOnly || state == .current || state == .version3 || state == .version4
        hasDesk = !readOnly || state == .current
        unmigratedDesk = readOnly && state == .version4
        lookupClaim = try db.prepare("SELECT order_id, user_id, created_at FROM claims WHERE key = ?")
        lookupClaimDetails = try db.prepare(
            "SELECT order_id, user_id, created_at, \(details) FROM claims WHERE key = ?")
        // The first claim of a token: a subscription's renewals share it.
        lookupToken =
            remembers
            ? try db.prepare("SELECT key FROM claims WHERE purchase_token = ? ORDER BY created_at, key LIMIT 1") : nil
        lookupReported = try db.prepare("SELECT 1 FROM reported WHERE order_id = ? AND rule = ?")
        lookupReview = try db.prepare("SELECT verdict, note, by, at FROM reviews WHERE order_id = ?")
        lookupRefund =
            remembers
            ? try db.prepare(
                "SELECT key, refunded_at, event, reason, source, identity, reversed_at "
                    + "FROM refunds WHERE key = ?") : nil
        lookupEvent =
            remembers ? try db.prepare("SELECT identity, type, first_run FROM store_events WHERE identity = ?") : nil
        lookupConsent =
            consents ? try db.prepare("SELECT \(SQLiteLedger.consentColumns) FROM consents WHERE user_id = ?") : nil
        // The latest said of the users whose folded ids match (two users differing in case only).
        lookupConsentFolded =
            consents
            ? try db.prepare(
                "SELECT \(SQLiteLedger.consentColumns) FROM consents WHERE folded = ? ORDER BY said_at DESC, user_id "
                    + "LIMIT 1") : nil
    }

    /// The schema version the file says it has (after opening, always `schemaVersion`).
    public func storedSchemaVersion() throws(LedgerError) -> Int {
        Int(try db.userVersion())
    }

    public func claims(of keys: [String]) throws -> [String: Claim] {
        try db.lookUp(lookupClaim, keys, SQLiteLedger.claim)
    }

    /// Earlier claims of these keys with what the ledger knows of each (schema-0 claims:
    /// all details nil).
    public func claimsWithDetails(of keys: [String]) throws(LedgerError) -> [String: (
        claim: Claim, details: ClaimDetails
    )] {
        try db.lookUp(lookupClaimDetails, keys) { s in
            SQLiteLedger.claim(s).map { claim in
                (
                    claim,
                    ClaimDetails(
                        productID: s.text(3), amount: s.text(4), currency: s.text(5), purchaseToken: s.text(6),
                        platform: s.text(7))
                )
            }
        }
    }

    /// The claim key of each purchase token the ledger keeps (token -> key); a token with
    /// several claims (a subscription's renewals) gives its first: earliest created, then key.
    public func claimKeys(forTokens tokens: [String]) throws(LedgerError) -> [String: String] {
        guard let lookupToken else { return [:] }
        return try db.lookUp(lookupToken, tokens) { $0.text(0) }
    }

    /// A claim from columns 0-2 (order_id, user_id, created_at); nil for a row whose time is
    /// out of range (as `claims(of:)` always did).
    static func claim(_ s: LedgerStatement) -> Claim? {
        // Dumps mostly give whole seconds: a time kept without milliseconds prints as they wrote it.
        let millis = s.int(2)
        guard let order = s.text(0), let user = s.text(1),
            let at = Timestamp(millis: millis, hasMilliseconds: millis % 1000 != 0)
        else { return nil }
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
        try reviews(of: [orderID])[orderID]
    }

    public func reviews(of orderIDs: [String]) throws(LedgerError) -> [String: Review] {
        try db.lookUp(lookupReview, orderIDs) { s in
            guard let verdict = s.text(0), let at = s.text(3) else { return nil }
            return Review(verdict: verdict, note: s.text(1), by: s.text(2), at: at)
        }
    }

    public func reported(_ findings: [ReportedFinding]) throws(LedgerError) -> Set<ReportedFinding> {
        try db.reading { () throws(LedgerError) in
            var out: Set<ReportedFinding> = []
            for f in findings where try wasReported(orderID: f.orderID, rule: f.rule) { out.insert(f) }
            return out
        }
    }

    /// The last `count` completed runs, newest first.
    public func recentRuns(_ count: Int) throws(LedgerError) -> [RecordedRun] {
        let stmt = try db.prepare(
            "SELECT id, started_at, finished_at, orders, flagged FROM runs ORDER BY id DESC LIMIT ?")
        stmt.bind(1, Int64(clamping: count))
        var runs: [RecordedRun] = []
        while try stmt.step() {
            guard let started = stmt.text(1), let finished = stmt.text(2), let orders = Int(exactly: stmt.int(3)),
                let flagged = Int(exactly: stmt.int(4))
            else { continue }
            runs.append(
                RecordedRun(id: stmt.int(0), startedAt: started, finishedAt: finished, orders: orders, flagged: flagged)
            )
        }
        return runs
    }

    /// Whether the ledger has seen this order: a completed run reported a finding on it, or it
    /// took a store transaction. (A finding is looked up by its key; a claim by a scan, which
    /// only `review` asks for.)
    public func knows(orderID: String) throws(LedgerError) -> Bool {
        let stmt = try db.prepare(
            "SELECT 1 WHERE EXISTS (SELECT 1 FROM reported WHERE order_id = ?1) "
                + "OR EXISTS (SELECT 1 FROM claims WHERE order_id = ?1)")
        stmt.bind(1, orderID)
        return try stmt.step()
    }
}
