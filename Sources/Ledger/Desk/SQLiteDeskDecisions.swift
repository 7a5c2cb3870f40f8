import SQLiteClient

// Claims, notes and verdicts on a SQLite ledger: each one write transaction (BEGIN
// IMMEDIATE), so of two desks deciding one order the second reads what the first wrote.
extension SQLiteDeskStore {
    /// The desk's row of an order: nil when no run flagged it; version 0 when the desk never touched it.
    private func deskRow(_ orderID: String) throws(LedgerError) -> DeskOrderRow? {
        try rows(
            "SELECT f.order_id, d.version, d.changed_by, d.claimed_by, d.claimed_until, d.verdict "
                + "FROM flagged_orders f LEFT JOIN desk_orders d ON d.order_id = f.order_id WHERE f.order_id = ?1",
            [.text(orderID)]
        ) { s in
            DeskOrderRow(
                version: s.optionalInt(1) ?? 0, changedBy: s.text(2), claimedBy: s.text(3), claimedUntil: s.optionalInt(4),
                verdict: s.text(5))
        }.first
    }

    private func save(_ orderID: String, _ row: DeskOrderRow) throws(LedgerError) {
        try run(
            """
            INSERT INTO desk_orders(order_id, version, changed_by, claimed_by, claimed_until) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(order_id) DO UPDATE SET version = excluded.version, changed_by = excluded.changed_by,
                claimed_by = excluded.claimed_by, claimed_until = excluded.claimed_until
            """, .text(orderID), .int(row.version), .text(row.changedBy), .text(row.claimedBy), .int(row.claimedUntil))
    }

    public func claim(_ orderID: String, by user: String, until: Int64, now: Int64) throws(LedgerError) -> ClaimOutcome {
        try db.writing { () throws(LedgerError) -> ClaimOutcome in try claimInside(orderID, by: user, until: until, now: now) }
    }

    private func claimInside(_ orderID: String, by user: String, until: Int64, now: Int64) throws(LedgerError)
        -> ClaimOutcome
    {
        guard var row = try deskRow(orderID) else { return .unknownOrder }
        if let holder = row.liveHolder(now: now), holder != user { return .heldBy(holder, until: row.claimedUntil ?? now) }
        row.version += 1
        row.changedBy = user
        row.claimedBy = user
        row.claimedUntil = until
        try save(orderID, row)
        try audit(
            AuditEntry(at: DeskTime.text(now), user: user, action: .claim, orderID: orderID, detail: "until \(DeskTime.text(until))"))
        return .claimed(until: until, version: row.version)
    }

    public func claimNext(by user: String, until: Int64, now: Int64) throws(LedgerError) -> (
        orderID: String, outcome: ClaimOutcome
    )? {
        try db.writing { () throws(LedgerError) -> (orderID: String, outcome: ClaimOutcome)? in
            let query = QueueQuery(QueueFilter(status: .open, limit: 1), now: now, dialect: .sqlite)
            guard
                let first = try rows(query.select, query.values.map(SQLiteDeskStore.value), { s in s.text(0) }).first
            else { return nil }
            return (first, try claimInside(first, by: user, until: until, now: now))
        }
    }

    public func release(_ orderID: String, by user: String, asLead: Bool, now: Int64) throws(LedgerError)
        -> ReleaseOutcome
    {
        try db.writing { () throws(LedgerError) -> ReleaseOutcome in
            guard var row = try deskRow(orderID) else { return .unknownOrder }
            guard let holder = row.liveHolder(now: now) else { return .notClaimed }
            if holder != user, !asLead { return .heldBy(holder) }
            row.claimedBy = nil
            row.claimedUntil = nil
            try save(orderID, row)
            try audit(
                AuditEntry(
                    at: DeskTime.text(now), user: user, action: .release, orderID: orderID,
                    detail: holder == user ? nil : "\(holder)'s claim"))
            return .released
        }
    }

    public func addNote(_ orderID: String, by user: String, text: String, at: Int64) throws(LedgerError) -> Int64? {
        try db.writing { () throws(LedgerError) -> Int64? in
            guard var row = try deskRow(orderID) else { return nil }
            row.version += 1
            row.changedBy = user
            try save(orderID, row)
            try run(
                "INSERT INTO desk_notes(order_id, by, at, text) VALUES (?1, ?2, ?3, ?4)", .text(orderID), .text(user),
                .text(DeskTime.text(at)), .text(text))
            try audit(
                AuditEntry(at: DeskTime.text(at), user: user, action: .note, orderID: orderID, detail: DeskOrderRow.excerpt(text)))
            return row.version
        }
    }

    public func giveVerdict(
        _ orderID: String, verdict: String, note: String?, by user: String, version: Int64?, bulk: Bool, at: Int64
    ) throws(LedgerError) -> VerdictOutcome {
        try db.writing { () throws(LedgerError) -> VerdictOutcome in
            guard var row = try deskRow(orderID) else { return .unknownOrder }
            if let holder = row.liveHolder(now: at), holder != user { return .heldBy(holder) }
            if let version, version != row.version { return .staleVersion(current: row.version, lastBy: row.changedBy) }
            let replaced = row.verdict
            let when = DeskTime.text(at)
            row.version += 1
            row.changedBy = user
            if row.claimedBy == user {
                row.claimedBy = nil
                row.claimedUntil = nil
            }
            try save(orderID, row)
            try run(
                "UPDATE desk_orders SET verdict = ?2, verdict_by = ?3, verdict_at = ?4, verdict_note = ?5 WHERE order_id = ?1",
                .text(orderID), .text(verdict), .text(user), .text(when), .text(note))
            // Kept apart until a run applies it: the run in progress judges without it.
            try run(
                "INSERT INTO desk_verdicts(order_id, verdict, note, by, at) VALUES (?1, ?2, ?3, ?4, ?5)", .text(orderID),
                .text(verdict), .text(note), .text(user), .text(when))
            try audit(
                AuditEntry(
                    at: when, user: user, action: bulk ? .bulkVerdict : .verdict, orderID: orderID,
                    detail: "\(verdict), replacing \(replaced ?? "none")"))
            return .recorded(replaced: replaced, version: row.version)
        }
    }
}

/// The desk's state of one flagged order, as read inside a write transaction.
struct DeskOrderRow {
    var version: Int64
    var changedBy: String?
    var claimedBy: String?
    var claimedUntil: Int64?
    var verdict: String?

    /// Who holds a claim that has not lapsed at `now`.
    func liveHolder(now: Int64) -> String? {
        guard let claimedBy, let claimedUntil, claimedUntil > now else { return nil }
        return claimedBy
    }

    /// A note as the audit trail quotes it: its first 200 characters.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }
}
