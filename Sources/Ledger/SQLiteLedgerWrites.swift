import IAPBasics

/// The statements that write the SQLite ledger's rows, one per table, prepared once for a
/// transaction: what a night records (`record`) and what a copy loads (`load`) go through
/// the same ones. A key the ledger has keeps its first taker, event and earliest refund.
final class SQLiteRowWriter {
    private let db: LedgerFile
    private let claim: LedgerStatement
    private let reported: LedgerStatement
    private let run: LedgerStatement
    private let event: LedgerStatement
    private let refund: LedgerStatement
    private let reversal: LedgerStatement
    private let review: LedgerStatement
    private let consent: LedgerStatement

    init(_ db: LedgerFile) throws(LedgerError) {
        self.db = db
        claim = try db.prepare(
            "INSERT OR IGNORE INTO claims(key, order_id, user_id, created_at, product_id, amount, "
                + "currency, purchase_token, platform) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        reported = try db.prepare("INSERT OR IGNORE INTO reported(order_id, rule) VALUES (?, ?)")
        // A NULL id is the next one.
        run = try db.prepare("INSERT INTO runs(id, started_at, finished_at, orders, flagged) VALUES (?, ?, ?, ?, ?)")
        event = try db.prepare("INSERT OR IGNORE INTO store_events(identity, type, first_run) VALUES (?, ?, ?)")
        // The earliest refund of a key wins, whichever night it was read on.
        refund = try db.prepare(
            """
            INSERT INTO refunds(key, refunded_at, event, reason, source, identity) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT(key) DO UPDATE SET refunded_at = excluded.refunded_at, event = excluded.event,
                reason = excluded.reason, source = excluded.source, identity = excluded.identity
            WHERE excluded.refunded_at < refunds.refunded_at
            """)
        // The earliest reversal stays too: a reversal logged again changes nothing.
        reversal = try db.prepare(
            "UPDATE refunds SET reversed_at = ?2 WHERE key = ?1 AND (reversed_at IS NULL OR reversed_at > ?2)")
        review = try db.prepare(
            "INSERT OR REPLACE INTO reviews(order_id, verdict, note, by, at) VALUES (?, ?, ?, ?, ?)")
        // The latest said wins; on a tie, tonight's (the later night).
        consent = try db.prepare(
            """
            INSERT INTO consents(user_id, folded, consent, said_at, order_id) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(user_id) DO UPDATE SET consent = excluded.consent, said_at = excluded.said_at,
                order_id = excluded.order_id
            WHERE excluded.said_at >= consents.said_at
            """)
    }

    func add(_ new: NewClaim) throws(LedgerError) {
        let c = new.claim
        let d = new.details
        try claim.run(
            .text(new.key), .text(c.orderID), .text(c.userID), .int(c.createdAt.millis), .text(d.productID),
            .text(d.amount), .text(d.currency), .text(d.purchaseToken), .text(d.platform))
    }

    func add(_ finding: ReportedFinding) throws(LedgerError) {
        try reported.run(.text(finding.orderID), .text(finding.rule))
    }

    /// Returns the run's id: `id`, or the next one when nil.
    func add(_ r: RecordedRun, id: Int64?) throws(LedgerError) -> Int64 {
        try run.run(.int(id), .text(r.startedAt), .text(r.finishedAt), .int(Int64(r.orders)), .int(Int64(r.flagged)))
        return db.lastInsertRowID
    }

    func add(_ e: RememberedEvent) throws(LedgerError) {
        try event.run(.text(e.identity), .text(e.type), .int(e.firstRun))
    }

    /// The refund, and its reversal when it has one.
    func add(_ r: RememberedRefund) throws(LedgerError) {
        try refund.run(
            .text(r.key), .int(r.refundedAt.millis), .text(r.event), .text(r.reason), .text(r.source), .text(r.identity)
        )
        if let at = r.reversedAt { try reverse(r.key, at: at) }
    }

    func reverse(_ key: String, at: Timestamp) throws(LedgerError) {
        try reversal.run(.text(key), .int(at.millis))
    }

    /// Records (or replaces) a verdict.
    func add(_ r: Review, orderID: String) throws(LedgerError) {
        try review.run(.text(orderID), .text(r.verdict), .text(r.note), .text(r.by), .text(r.at))
    }

    func add(_ c: RememberedConsent) throws(LedgerError) {
        try consent.run(
            .text(c.userID), .text(RememberedConsent.folded(c.userID)), .int(c.consented ? 1 : 0),
            .int(c.saidAt.millis),
            .text(c.orderID))
    }
}

extension SQLiteLedger {
    /// Records a completed run in one transaction: its new claims with their details (the
    /// first taker stays), what it reported, the run, its store events, refunds, reversals
    /// and consents.
    public func record(_ run: RunRecord) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            let rows = try SQLiteRowWriter(db)
            // In key order: each insert lands beside the last one, on pages already in cache.
            try run.newClaims.forEachRow { (new) throws(LedgerError) in try rows.add(new) }
            try run.reported.forEachRow { (r) throws(LedgerError) in try rows.add(r) }
            let runID = try rows.add(
                RecordedRun(
                    id: 0, startedAt: run.startedAt.iso8601, finishedAt: run.finishedAt.iso8601,
                    orders: run.orders, flagged: run.flagged), id: nil)
            for e in run.events.sorted(by: { $0.identity < $1.identity }) {
                try rows.add(RememberedEvent(identity: e.identity, type: e.type, firstRun: runID))
            }
            for r in run.refunds { try rows.add(r) }
            // After the refunds: a refund and its reversal may arrive on the same night.
            for r in run.reversals { try rows.reverse(r.key, at: r.at) }
            try run.consents.forEachRow { (c) throws(LedgerError) in try rows.add(c) }
        }
    }

    /// Records (or replaces) a reviewer's verdict.
    public func recordReview(orderID: String, _ review: Review) throws(LedgerError) {
        try SQLiteRowWriter(db).add(review, orderID: orderID)
    }
}
