import IAPBasics
import SQLiteClient

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
    public func record(_ run: RunRecord, commitIf: () -> Bool) throws(LedgerError) {
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
            let flagged = try SQLiteFlaggedWriter(db, run: runID, at: run.finishedAt.iso8601)
            try run.flaggedOrders.blocks.forEachRow { (b) throws(LedgerError) in try flagged.add(b) }
            try run.flaggedOrders.heads.forEachRow { (f) throws(LedgerError) in try flagged.add(f) }
            guard commitIf() else { throw LedgerError.notCommitted }
        }
    }

    /// Records (or replaces) a reviewer's verdict: in the reviews a run reads, as the desk's
    /// verdict on the order, and in the audit trail (`review`). A verdict the desk gave on
    /// the order and no run applied yet is older: it goes.
    public func recordReview(orderID: String, _ review: Review) throws(LedgerError) {
        try db.writing { () throws(LedgerError) in
            let earlier = try reviews(of: [orderID])[orderID]
            try SQLiteRowWriter(db).add(review, orderID: orderID)
            for (sql, values) in ReviewOnDesk.statements(orderID: orderID, review, replacing: earlier) {
                let statement = try db.prepare(sql)
                statement.bind(values.map(SQLiteValue.init))
                try statement.run()
            }
        }
    }

    /// The verdicts the desk gave since the last run applied them, into the reviews a run
    /// reads, oldest first (a later one on an order replaces an earlier); how many. Called
    /// by `screen` holding the ledger, before it reads anything.
    public func applyDeskVerdicts() throws(LedgerError) -> Int {
        try db.writing { () throws(LedgerError) -> Int in
            let count = try db.prepare("SELECT count(*) FROM desk_verdicts")
            guard try count.step() else { return 0 }
            let n = Int(clamping: count.int(0))
            count.reset()
            guard n > 0 else { return 0 }
            try db.execute(
                """
                INSERT OR REPLACE INTO reviews(order_id, verdict, note, by, at)
                    SELECT order_id, verdict, note, by, at FROM desk_verdicts ORDER BY id;
                DELETE FROM desk_verdicts;
                """)
            return n
        }
    }
}

/// Writes a run's flagged orders for the desk: the order as this run saw it (the first run
/// that flagged it stays; the run before goes to the history by trigger), its blocks, the
/// transactions it named.
final class SQLiteFlaggedWriter {
    private let order: LedgerStatement
    private let block: LedgerStatement
    private let key: LedgerStatement
    private let run: Int64
    private let at: String

    init(_ db: LedgerFile, run: Int64, at: String) throws(LedgerError) {
        self.run = run
        self.at = at
        order = try db.prepare(
            """
            INSERT INTO flagged_orders(order_id, user_id, platform, product_id, amount, currency, created_at, severity,
                rules, first_run, first_flagged_at, last_run, last_flagged_at, decided, block)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?10, ?11,
                EXISTS (SELECT 1 FROM desk_orders WHERE order_id = ?1 AND verdict IS NOT NULL), ?12)
            ON CONFLICT(order_id) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                product_id = excluded.product_id, amount = excluded.amount, currency = excluded.currency,
                created_at = excluded.created_at, severity = excluded.severity, rules = excluded.rules,
                last_run = excluded.last_run, last_flagged_at = excluded.last_flagged_at, block = excluded.block
            """)
        block = try db.prepare("INSERT OR REPLACE INTO flagged_blocks(run, n, data) VALUES (?, ?, ?)")
        key = try db.prepare("INSERT OR IGNORE INTO flagged_keys(order_id, key) VALUES (?, ?)")
    }

    func add(_ b: FlaggedBlock) throws(LedgerError) {
        try block.run(.int(run), .int(b.n), .text(b.data))
    }

    func add(_ f: FlaggedOrderHead) throws(LedgerError) {
        try order.run(
            .text(f.orderID), .text(f.userID), .text(f.platform), .text(f.productID), .text(f.amount),
            .text(f.currency), .text(f.createdAt), .int(Int64(f.severity)), .text(f.rules), .int(run), .text(at),
            .int(f.block))
        for k in f.transactions { try key.run(.text(f.orderID), .text(k)) }
    }
}
