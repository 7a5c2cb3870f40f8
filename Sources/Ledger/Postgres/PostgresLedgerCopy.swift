import IAPBasics
import PostgresClient

/// What `ledger status` and `ledger copy` ask of a PostgreSQL ledger: its counts, who holds
/// it, every row out (through cursors, in one snapshot) and every row in (COPY, in one
/// transaction).
extension PostgresLedger {
    public func counts() throws(LedgerError) -> LedgerCounts {
        // The desk's after the others, in `copiedDeskTables`' order, then the open claims.
        let desk = hasDesk ? copiedDeskTables.map { $0.countRows } + [countOpenClaims] : []
        return try onServer(target) { () throws(PostgresError) in
            let r = try db.query(
                """
                SELECT (SELECT count(*) FROM iapscreen.claims), (SELECT count(*) FROM iapscreen.reported),
                       (SELECT count(*) FROM iapscreen.reviews), (SELECT count(*) FROM iapscreen.runs),
                       (SELECT count(*) FROM iapscreen.store_events), (SELECT count(*) FROM iapscreen.refunds),
                       (SELECT count(*) FROM iapscreen.refunds WHERE reversed_at IS NOT NULL),
                       \(lookupConsents == nil ? "0" : "(SELECT count(*) FROM iapscreen.consents)")
                """ + desk.map { ", (\(SQLDialect.postgres.numbered($0)))" }.joined(),
                hasDesk ? [.int64(SystemClock.now().millis)] : [])
            func cell(_ column: Int) throws(PostgresError) -> Int { Int(clamping: try r.int64(0, column) ?? 0) }
            var c = LedgerCounts()
            (c.claims, c.reported, c.reviews, c.runs) = (try cell(0), try cell(1), try cell(2), try cell(3))
            (c.storeEvents, c.refunds, c.reversed) = (try cell(4), try cell(5), try cell(6))
            c.consents = try cell(7)
            guard hasDesk else { return c }
            for (i, table) in copiedDeskTables.enumerated() { c[keyPath: table.counted] = try cell(8 + i) }
            c.openClaims = try cell(8 + copiedDeskTables.count)
            return c
        }
    }

    public func runHolder() throws(LedgerError) -> String? {
        try onServer(target) { () throws(PostgresError) in try PostgresRunLock.holder(db) }
    }

    public func exportRows(batch: Int, _ body: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError) {
        let size = max(batch, 1)
        try inTransaction(db, target, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { () throws(LedgerError) in
            try export(
                "runs", "SELECT id, started_at, finished_at, orders, flagged FROM iapscreen.runs ORDER BY id", size,
                body,
                LedgerRows.runs
            ) { r, i throws(PostgresError) in
                guard let id = try r.int64(i, 0), let started = try r.text(i, 1), let finished = try r.text(i, 2),
                    let orders = try r.int64(i, 3).flatMap({ Int(exactly: $0) }),
                    let flagged = try r.int64(i, 4).flatMap({ Int(exactly: $0) })
                else { return nil }
                return RecordedRun(id: id, startedAt: started, finishedAt: finished, orders: orders, flagged: flagged)
            }
            try export(
                "claims", "SELECT \(claimColumns) FROM iapscreen.claims ORDER BY key", size, body, LedgerRows.claims,
                PostgresLedger.newClaim)
            try export(
                "reported", "SELECT order_id, rule FROM iapscreen.reported ORDER BY order_id, rule", size, body,
                LedgerRows.reported
            ) { r, i throws(PostgresError) in
                guard let order = try r.text(i, 0), let rule = try r.text(i, 1) else { return nil }
                return ReportedFinding(orderID: order, rule: rule)
            }
            try export(
                "reviews", "SELECT order_id, verdict, note, \"by\", at FROM iapscreen.reviews ORDER BY order_id", size,
                body,
                LedgerRows.reviews
            ) { r, i throws(PostgresError) in
                guard let order = try r.text(i, 0), let review = try PostgresLedger.review(r, i) else { return nil }
                return (orderID: order, review: review)
            }
            try export(
                "store_events", "SELECT identity, type, first_run FROM iapscreen.store_events ORDER BY identity", size,
                body, LedgerRows.events, PostgresLedger.event)
            try export(
                "refunds", "SELECT \(refundColumns) FROM iapscreen.refunds ORDER BY key", size, body,
                LedgerRows.refunds,
                PostgresLedger.refund)
            if lookupConsents != nil {
                try export(
                    "consents", "SELECT user_id, consent, said_at, order_id FROM iapscreen.consents ORDER BY user_id",
                    size, body, LedgerRows.consents
                ) { r, i throws(PostgresError) in try PostgresLedger.consent(r, i, from: 0) }
            }
            if unmigratedDesk { throw LedgerError.unmigratedDesk(target) }
            guard hasDesk else { return }
            for table in copiedDeskTables { try export(table, size, body) }
        }
    }

    private func export<R: DeskTableRow>(_ table: R.Type, _ size: Int, _ body: (LedgerRows) throws(LedgerError) -> Void)
        throws(LedgerError)
    {
        try export(R.table, R.exportRows, size, body, R.batch) { r, i throws(PostgresError) in R(try DeskRow(r, i)) }
    }

    /// The rows of `sql` through a cursor, `size` at a time, each read by `row`; a row it
    /// cannot read (nil) stops the export, naming the table and the row's first column.
    private func export<T>(
        _ table: String, _ sql: String, _ size: Int, _ body: (LedgerRows) throws(LedgerError) -> Void,
        _ batch: ([T]) -> LedgerRows, _ row: (PostgresResult, Int) throws(PostgresError) -> T?
    )
        throws(LedgerError)
    {
        try onServer(target) { () throws(PostgresError) in try db.execute("DECLARE export NO SCROLL CURSOR FOR \(sql)")
        }
        while true {
            let rows = try onServer(target) { () throws(PostgresError) -> [T] in
                let r = try db.query("FETCH FORWARD \(size) FROM export")
                var rows: [T] = []
                rows.reserveCapacity(r.rowCount)
                for i in 0..<r.rowCount {
                    guard let value = try row(r, i) else {
                        throw PostgresError(
                            "a row of \(table) (\(try r.text(i, 0) ?? "NULL")) holds a value this iapscreen "
                                + "cannot read (a time out of range?); nothing copied")
                    }
                    rows.append(value)
                }
                return rows
            }
            if rows.isEmpty { break }
            try body(batch(rows))
        }
        try onServer(target) { () throws(PostgresError) in try db.execute("CLOSE export") }
    }

    public func load(_ fill: (_ write: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError) -> Void)
        throws(LedgerError)
    {
        try inTransaction(db, target) { () throws(LedgerError) in
            let held = try counts()
            guard held.isEmpty else {
                throw LedgerError("ledger \(target) is not empty: it holds \(held); nothing copied", code: .notEmpty)
            }
            try fill { batch throws(LedgerError) in
                try onServer(target) { () throws(PostgresError) in try copyIn(batch) }
            }
            // Runs, notes, desk verdicts and audit entries keep their ids: the next one's comes
            // after the last one copied.
            try onServer(target) { () throws(PostgresError) in
                for table in ["runs", "desk_notes", "desk_verdicts", "desk_audit"] {
                    try db.query(
                        "SELECT setval(pg_get_serial_sequence('iapscreen.\(table)', 'id'), max(id)) FROM iapscreen.\(table) "
                            + "HAVING max(id) IS NOT NULL")
                }
            }
        }
    }

    /// One batch straight into its table (the target is empty: nothing to merge).
    private func copyIn(_ batch: LedgerRows) throws(PostgresError) {
        switch batch {
        case .runs(let runs):
            try db.copyIn(
                "COPY iapscreen.runs(id, started_at, finished_at, orders, flagged) FROM STDIN", count: runs.count
            ) { rows, i in
                let r = runs[i]
                rows.add(r.id)
                rows.add(r.startedAt)
                rows.add(r.finishedAt)
                rows.add(Int64(r.orders))
                rows.add(Int64(r.flagged))
                rows.endRow()
            }
        case .claims(let claims):
            try db.copyIn("COPY iapscreen.claims(\(claimColumns)) FROM STDIN", count: claims.count) { rows, i in
                rows.add(claims[i])
                rows.endRow()
            }
        case .reported(let findings):
            try db.copyIn("COPY iapscreen.reported(order_id, rule) FROM STDIN", count: findings.count) { rows, i in
                rows.add(findings[i])
                rows.endRow()
            }
        case .reviews(let reviews):
            try db.copyIn(
                "COPY iapscreen.reviews(order_id, verdict, note, \"by\", at) FROM STDIN", count: reviews.count
            ) { rows, i in
                let r = reviews[i].review
                rows.add(reviews[i].orderID)
                rows.add(r.verdict)
                rows.add(r.note)
                rows.add(r.by)
                rows.add(r.at)
                rows.endRow()
            }
        case .events(let events):
            try db.copyIn("COPY iapscreen.store_events(identity, type, first_run) FROM STDIN", count: events.count) {
                rows, i in
                rows.add(events[i].identity)
                rows.add(events[i].type)
                rows.add(events[i].firstRun)
                rows.endRow()
            }
        case .refunds(let refunds):
            try db.copyIn("COPY iapscreen.refunds(\(refundColumns)) FROM STDIN", count: refunds.count) { rows, i in
                rows.add(refunds[i])
                rows.add(refunds[i].reversedAt?.millis)
                rows.endRow()
            }
        case .consents(let consents):
            try db.copyIn(
                "COPY iapscreen.consents(user_id, folded, consent, said_at, order_id) FROM STDIN", count: consents.count
            ) { rows, i in
                rows.add(consents[i])
                rows.endRow()
            }
        case .flaggedOrders, .flaggedHistory, .flaggedBlocks, .flaggedKeys, .deskUsers, .deskOrders, .deskNotes,
            .deskVerdicts,
            .deskAudit:
            guard let desk = batch.deskTable else { return }
            // The audit trail too: its trigger refuses changes, not rows added.
            let copy = "COPY iapscreen.\(desk.type.table)(\(desk.type.columns)) FROM STDIN"
            try db.copyIn(copy, count: desk.rows.count) { rows, i in
                for value in desk.rows[i] { rows.add(value) }
                rows.endRow()
            }
        }
    }
}

/// The columns `PostgresLedger.newClaim` and `PostgresCopyRows.add(NewClaim)` read and write, in order.
private let claimColumns = "key, order_id, user_id, created_at, product_id, amount, currency, purchase_token, platform"
/// The columns `PostgresLedger.refund` reads, in order (COPY: `add(RememberedRefund)`, then reversed_at).
private let refundColumns = "key, refunded_at, event, reason, source, identity, reversed_at"

extension PostgresCopyRows {
    /// A desk value as COPY's text takes it.
    mutating func add(_ value: DeskValue) {
        switch value {
        case .text(let t): add(t)
        case .int(let i): add(i)
        case .bool(let b): add(b ? "t" : "f")
        }
    }
}
