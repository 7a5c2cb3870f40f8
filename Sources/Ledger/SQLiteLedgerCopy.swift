import IAPBasics
import SQLiteClient

/// What `ledger status` and `ledger copy` ask of a SQLite ledger: its counts, who holds it,
/// every row out, and every row in.
extension SQLiteLedger {
    /// Whether the file has the tables schema 2 added (a schema-0 file opened read-only has not).
    private var hasStoreEvents: Bool { lookupRefund != nil }
    /// Whether the file has schema 3's consents (one of schema 2 opened read-only has not).
    private var hasConsents: Bool { lookupConsent != nil }

    public func counts() throws(LedgerError) -> LedgerCounts {
        try db.reading { () throws(LedgerError) in
            func count(_ sql: String, _ values: SQLiteValue...) throws(LedgerError) -> Int {
                let stmt = try db.prepare(sql)
                stmt.bind(values)
                return try stmt.step() ? Int(clamping: stmt.int(0)) : 0
            }
            var c = LedgerCounts()
            c.claims = try count("SELECT count(*) FROM claims")
            c.reported = try count("SELECT count(*) FROM reported")
            c.reviews = try count("SELECT count(*) FROM reviews")
            c.runs = try count("SELECT count(*) FROM runs")
            if hasStoreEvents {
                c.storeEvents = try count("SELECT count(*) FROM store_events")
                c.refunds = try count("SELECT count(*) FROM refunds")
                c.reversed = try count("SELECT count(*) FROM refunds WHERE reversed_at IS NOT NULL")
            }
            if hasConsents { c.consents = try count("SELECT count(*) FROM consents") }
            guard hasDesk else { return c }
            for table in copiedDeskTables { c[keyPath: table.counted] = try count(table.countRows) }
            c.openClaims = try count(countOpenClaims, .int(SystemClock.now().millis))
            return c
        }
    }

    public func runHolder() throws(LedgerError) -> String? {
        LedgerLock.holder(ledgerPath: path).map { "process \($0) (lock \(path).lock)" }
    }

    public func exportRows(batch: Int, _ body: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError) {
        let size = max(batch, 1)
        let details =
            hasStoreEvents ? "product_id, amount, currency, purchase_token, platform" : "NULL, NULL, NULL, NULL, NULL"
        try db.reading { () throws(LedgerError) in
            try export(
                "runs", "SELECT id, started_at, finished_at, orders, flagged FROM runs ORDER BY id", size, body,
                LedgerRows.runs
            ) { s in
                guard let started = s.text(1), let finished = s.text(2), let orders = Int(exactly: s.int(3)),
                    let flagged = Int(exactly: s.int(4))
                else { return nil }
                return RecordedRun(
                    id: s.int(0), startedAt: started, finishedAt: finished, orders: orders, flagged: flagged)
            }
            try export(
                "claims", "SELECT order_id, user_id, created_at, \(details), key FROM claims ORDER BY key", size, body,
                LedgerRows.claims
            ) { s in
                guard let key = s.text(8), let claim = SQLiteLedger.claim(s) else { return nil }
                return NewClaim(
                    key: key, claim: claim,
                    details: ClaimDetails(
                        productID: s.text(3), amount: s.text(4), currency: s.text(5),
                        purchaseToken: s.text(6), platform: s.text(7)))
            }
            try export(
                "reported", "SELECT order_id, rule FROM reported ORDER BY order_id, rule", size, body,
                LedgerRows.reported
            ) { s in
                guard let order = s.text(0), let rule = s.text(1) else { return nil }
                return ReportedFinding(orderID: order, rule: rule)
            }
            try export(
                "reviews", "SELECT order_id, verdict, note, by, at FROM reviews ORDER BY order_id", size, body,
                LedgerRows.reviews
            ) { s in
                guard let order = s.text(0), let verdict = s.text(1), let at = s.text(4) else { return nil }
                return (orderID: order, review: Review(verdict: verdict, note: s.text(2), by: s.text(3), at: at))
            }
            guard hasStoreEvents else { return }
            try export(
                "store_events", "SELECT identity, type, first_run FROM store_events ORDER BY identity", size, body,
                LedgerRows.events
            ) { s in
                guard let identity = s.text(0), let type = s.text(1) else { return nil }
                return RememberedEvent(identity: identity, type: type, firstRun: s.optionalInt(2))
            }
            try export(
                "refunds",
                "SELECT key, refunded_at, event, reason, source, identity, reversed_at FROM refunds ORDER BY key",
                size, body, LedgerRows.refunds, SQLiteLedger.refund)
            if hasConsents {
                try export(
                    "consents", "SELECT \(SQLiteLedger.consentColumns) FROM consents ORDER BY user_id", size, body,
                    LedgerRows.consents, SQLiteLedger.consent)
            }
            if unmigratedDesk { throw LedgerError.unmigratedDesk(path) }
            guard hasDesk else { return }
            for table in copiedDeskTables { try export(table, size, body) }
        }
    }

    private func export<R: DeskTableRow>(_ table: R.Type, _ size: Int, _ body: (LedgerRows) throws(LedgerError) -> Void)
        throws(LedgerError)
    {
        try export(R.table, R.exportRows, size, body, R.batch) { R(DeskRow($0)) }
    }

    /// The rows of `sql` in batches of `size`, each read by `row`; a row it cannot read (nil)
    /// stops the export, naming the table and the row's first column.
    private func export<T>(
        _ table: String, _ sql: String, _ size: Int, _ body: (LedgerRows) throws(LedgerError) -> Void,
        _ batch: ([T]) -> LedgerRows, _ row: (LedgerStatement) -> T?
    ) throws(LedgerError) {
        let stmt = try db.prepare(sql)
        var rows: [T] = []
        rows.reserveCapacity(min(size, 1 << 16))
        while try stmt.step() {
            guard let r = row(stmt) else {
                throw LedgerError(
                    "ledger \(path): a row of \(table) (\(stmt.text(0) ?? "NULL")) holds a value this iapscreen "
                        + "cannot read (a time out of range?); nothing copied", code: .copyFailed)
            }
            rows.append(r)
            if rows.count == size {
                try body(batch(rows))
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try body(batch(rows)) }
    }

    public func load(_ fill: (_ write: (LedgerRows) throws(LedgerError) -> Void) throws(LedgerError) -> Void)
        throws(LedgerError)
    {
        try db.writing { () throws(LedgerError) in
            let held = try counts()
            guard held.isEmpty else {
                throw LedgerError("ledger \(path) is not empty: it holds \(held); nothing copied", code: .notEmpty)
            }
            let rows = try SQLiteRowWriter(db)
            func insert(_ table: any DeskTableRow.Type, _ values: [[DeskValue]]) throws(LedgerError) {
                let places = (0..<table.columnCount).map { "?\($0 + 1)" }.joined(separator: ", ")
                let statement = try db.prepare("INSERT INTO \(table.table)(\(table.columns)) VALUES (\(places))")
                for row in values {
                    statement.bind(row.map(SQLiteValue.init))
                    try statement.run()
                }
            }
            try fill { batch throws(LedgerError) in
                switch batch {
                case .runs(let runs): for r in runs { _ = try rows.add(r, id: r.id) }
                case .claims(let claims): for c in claims { try rows.add(c) }
                case .reported(let findings): for f in findings { try rows.add(f) }
                case .reviews(let reviews): for r in reviews { try rows.add(r.review, orderID: r.orderID) }
                case .events(let events): for e in events { try rows.add(e) }
                case .refunds(let refunds): for r in refunds { try rows.add(r) }
                case .consents(let consents): for c in consents { try rows.add(c) }
                case .flaggedOrders, .flaggedHistory, .flaggedBlocks, .flaggedKeys, .deskUsers, .deskOrders, .deskNotes,
                    .deskVerdicts,
                    .deskAudit:
                    if let desk = batch.deskTable { try insert(desk.type, desk.rows) }
                }
            }
        }
    }
}
