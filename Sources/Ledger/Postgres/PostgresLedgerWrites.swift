import IAPBasics
import PostgresClient

/// What a night writes, staged with COPY into temporary tables (dropped at COMMIT or
/// ROLLBACK) and merged from there with one statement per table: 10⁶ claims are one COPY and
/// one INSERT, not 10⁶ round trips. `n` keeps the order they were given in.
let staging = """
    CREATE TEMP TABLE night_claims(n bigint, key text, order_id text, user_id text, created_at bigint, product_id text,
                                   amount text, currency text, purchase_token text, platform text) ON COMMIT DROP;
    CREATE TEMP TABLE night_reported(order_id text, rule text) ON COMMIT DROP;
    CREATE TEMP TABLE night_events(n bigint, identity text, type text) ON COMMIT DROP;
    CREATE TEMP TABLE night_refunds(n bigint, key text, refunded_at bigint, event text, reason text, source text,
                                    identity text) ON COMMIT DROP;
    CREATE TEMP TABLE night_reversals(key text, at bigint) ON COMMIT DROP;
    CREATE TEMP TABLE night_consents(n bigint, user_id text, folded text, consent boolean, said_at bigint,
                                     order_id text) ON COMMIT DROP;
    """ + PostgresFlaggedOrders.staging

/// A night's claims are sorted before they go in (in key order the index takes them
/// fastest): in memory, not in 4 MB runs on disk.
let sortInMemory = "SET LOCAL work_mem = '256MB'"

/// A key the ledger has keeps its first taker; of one key given twice, the first given.
private let mergeClaims = """
    INSERT INTO iapscreen.claims(key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform)
    SELECT DISTINCT ON (key) key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform
    FROM pg_temp.night_claims ORDER BY key, n
    ON CONFLICT (key) DO NOTHING
    """

let mergeReported = """
    INSERT INTO iapscreen.reported(order_id, rule) SELECT DISTINCT order_id, rule FROM pg_temp.night_reported
    ON CONFLICT (order_id, rule) DO NOTHING
    """

/// An event the ledger knows keeps its first run; of one given twice, the first given.
let mergeEvents = """
    INSERT INTO iapscreen.store_events(identity, type, first_run)
    SELECT DISTINCT ON (identity) identity, type, $1 FROM pg_temp.night_events ORDER BY identity, n
    ON CONFLICT (identity) DO NOTHING
    """

/// The earliest refund of a key wins, whichever night it was read on (a tie: the one kept,
/// or tonight's first given); its reversal time stays.
let mergeRefunds = """
    INSERT INTO iapscreen.refunds AS r(key, refunded_at, event, reason, source, identity)
    SELECT DISTINCT ON (key) key, refunded_at, event, reason, source, identity FROM pg_temp.night_refunds
    ORDER BY key, refunded_at, n
    ON CONFLICT (key) DO UPDATE SET refunded_at = excluded.refunded_at, event = excluded.event, reason = excluded.reason,
        source = excluded.source, identity = excluded.identity
    WHERE excluded.refunded_at < r.refunded_at
    """

/// After the refunds (a refund and its reversal may come on one night); the earliest
/// reversal stays; a reversal of a refund the ledger never saw marks nothing.
let mergeReversals = """
    UPDATE iapscreen.refunds r SET reversed_at = v.at
    FROM (SELECT key, min(at) AS at FROM pg_temp.night_reversals GROUP BY key) v
    WHERE r.key = v.key AND (r.reversed_at IS NULL OR r.reversed_at > v.at)
    """

extension PostgresLedger {
    public func record(_ run: RunRecord, commitIf: () -> Bool) throws(LedgerError) {
        try inTransaction(db, target) { () throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                try db.execute(staging)
                try db.execute(sortInMemory)
            }
            try copyRows(db, target, "COPY pg_temp.night_claims FROM STDIN", run.newClaims) { rows, n, claim in
                rows.add(n)
                rows.add(claim)
            }
            try copyRows(db, target, "COPY pg_temp.night_reported FROM STDIN", run.reported) { rows, _, f in
                rows.add(f)
            }
            let runID = try onServer(target) { () throws(PostgresError) in
                try db.execute(mergeClaims)
                try db.execute(mergeReported)
                let runID = try db.query(
                    "INSERT INTO iapscreen.runs(started_at, finished_at, orders, flagged) "
                        + "VALUES ($1, $2, $3, $4) RETURNING id",
                    [
                        .text(run.startedAt.iso8601), .text(run.finishedAt.iso8601), .int64(Int64(run.orders)),
                        .int64(Int64(run.flagged)),
                    ]
                ).int64(0, 0)
                guard let runID else { throw PostgresError("the new run was given no id") }
                try recordStoreEvents(run, runID: runID)
                return runID
            }
            try copyRows(db, target, "COPY pg_temp.night_consents FROM STDIN", run.consents) { rows, n, c in
                rows.add(n)
                rows.add(c)
            }
            try onServer(target) { () throws(PostgresError) in try db.execute(mergeConsents) }
            try PostgresFlaggedOrders.copy(db, target, run.flaggedOrders, into: "pg_temp.night_")
            try onServer(target) { () throws(PostgresError) in
                try PostgresFlaggedOrders.merge(db, run: runID, at: run.finishedAt.iso8601)
            }
            guard commitIf() else { throw LedgerError.notCommitted }
        }
    }

    /// The store-event part of `record`, inside its transaction.
    private func recordStoreEvents(_ run: RunRecord, runID: Int64) throws(PostgresError) {
        let events = run.events
        try db.copyIn("COPY pg_temp.night_events FROM STDIN", count: events.count) { rows, i in
            rows.add(Int64(i))
            rows.add(events[i].identity)
            rows.add(events[i].type)
            rows.endRow()
        }
        try db.query(mergeEvents, [.int64(runID)])
        let refunds = run.refunds
        try db.copyIn("COPY pg_temp.night_refunds FROM STDIN", count: refunds.count) { rows, i in
            rows.add(Int64(i))
            rows.add(refunds[i])
            rows.endRow()
        }
        try db.execute(mergeRefunds)
        let reversals = refunds.compactMap { r in r.reversedAt.map { (key: r.key, at: $0) } } + run.reversals
        try db.copyIn("COPY pg_temp.night_reversals FROM STDIN", count: reversals.count) { rows, i in
            rows.add(reversals[i].key)
            rows.add(reversals[i].at.millis)
            rows.endRow()
        }
        try db.execute(mergeReversals)
    }

    /// Records (or replaces) a reviewer's verdict: in the reviews a run reads, as the desk's
    /// verdict on the order, and in the audit trail (`review`), in one transaction, as SQLite's.
    public func recordReview(orderID: String, _ review: Review) throws(LedgerError) {
        try inTransaction(db, target) { () throws(LedgerError) in
            let earlier = try reviews(of: [orderID])[orderID]
            try onServer(target) { () throws(PostgresError) in
                try db.query(
                    """
                    INSERT INTO iapscreen.reviews(order_id, verdict, note, "by", at) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (order_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note,
                        "by" = excluded."by", at = excluded.at
                    """,
                    [
                        .text(orderID), .text(review.verdict), PostgresParameter(review.note),
                        PostgresParameter(review.by), .text(review.at),
                    ])
                for (sql, values) in ReviewOnDesk.statements(orderID: orderID, review, replacing: earlier) {
                    try db.query(SQLDialect.postgres.numbered(sql), values.map(PostgresParameter.init))
                }
            }
        }
    }

    /// The verdicts the desk gave since the last run applied them, into the reviews a run
    /// reads (of an order's, the latest); how many. One statement: it moves exactly the rows
    /// it reads, so a verdict the desk gives meanwhile waits for the next run, not lost.
    public func applyDeskVerdicts() throws(LedgerError) -> Int {
        try onServer(target) { () throws(PostgresError) in
            let moved = try db.query(
                """
                WITH moved AS (DELETE FROM iapscreen.desk_verdicts RETURNING id, order_id, verdict, note, "by", at),
                applied AS (
                    INSERT INTO iapscreen.reviews(order_id, verdict, note, "by", at)
                    SELECT DISTINCT ON (order_id) order_id, verdict, note, "by", at FROM moved ORDER BY order_id, id DESC
                    ON CONFLICT (order_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note,
                        "by" = excluded."by", at = excluded.at)
                SELECT count(*) FROM moved
                """
            ).int64(0, 0)
            return Int(clamping: moved ?? 0)
        }
    }
}

/// `rows` into the table `sql` copies to, a COPY a batch (rows in memory are one), each row
/// written by `row` with its number among them.
func copyRows<Row>(
    _ db: PostgresConnection, _ target: String, _ sql: String, _ rows: RunRows<Row>,
    _ row: (inout PostgresCopyRows, Int64, Row) -> Void
) throws(LedgerError) {
    var n: Int64 = 0
    try rows.forEachBatch { (batch) throws(LedgerError) in
        try onServer(target) { () throws(PostgresError) in
            _ = try db.copyIn(sql, count: batch.count) { out, i in
                row(&out, n + Int64(i), batch[i])
                out.endRow()
            }
        }
        n += Int64(batch.count)
    }
}

/// A row's columns as the ledger's tables (and the night's staging tables after `n`) hold
/// them: what a night records and what a copy loads are written alike.
extension PostgresCopyRows {
    /// key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform
    mutating func add(_ new: NewClaim) {
        let c = new.claim
        let d = new.details
        add(new.key)
        add(c.orderID)
        add(c.userID)
        add(c.createdAt.millis)
        add(d.productID)
        add(d.amount)
        add(d.currency)
        add(d.purchaseToken)
        add(d.platform)
    }

    /// order_id, rule
    mutating func add(_ finding: ReportedFinding) {
        add(finding.orderID)
        add(finding.rule)
    }

    /// key, refunded_at, event, reason, source, identity (its reversal apart)
    mutating func add(_ r: RememberedRefund) {
        add(r.key)
        add(r.refundedAt.millis)
        add(r.event)
        add(r.reason)
        add(r.source)
        add(r.identity)
    }
}
