// Claims, notes and verdicts, on either backend: each one write transaction that reads the
// order's desk row locked (`lockedRow`), so of two desks deciding one order — two threads,
// or two processes on one database — the second reads what the first wrote. A refusal
// (another's claim, a stale version) is rolled back: it changes nothing.
extension LedgerDeskStore {
    /// The desk's row of an order, locked until the transaction ends: nil when no run flagged
    /// it; version 0 when the desk never touched it.
    private func lockedRow(_ orderID: String) throws(LedgerError) -> DeskOrderRow? {
        guard
            try !database.rows("SELECT 1 FROM flagged_orders WHERE order_id = ?1", [.text(orderID)], { _ in () })
                .isEmpty
        else { return nil }
        // A row to lock, for an order the desk never touched: of two desks inserting it, the
        // second waits for the first's transaction, then reads its row.
        try database.run(
            "INSERT INTO desk_orders(order_id, version) VALUES (?1, 0) ON CONFLICT(order_id) DO NOTHING",
            [.text(orderID)])
        return try database.rows(
            "SELECT version, changed_by, claimed_by, claimed_until, verdict FROM desk_orders WHERE order_id = ?1"
                + database.dialect.lockingRead, [.text(orderID)]
        ) { r in
            r.int(0).map {
                DeskOrderRow(
                    version: $0, changedBy: r.text(1), claimedBy: r.text(2), claimedUntil: r.int(3), verdict: r.text(4))
            }
        }.first
    }

    /// The order's desk row as `row` says, and the audit entry of the change.
    private func save(
        _ orderID: String, _ row: DeskOrderRow, _ action: AuditEntry.Action, by user: String, at: Int64,
        detail: String?
    ) throws(LedgerError) {
        try database.run(
            "UPDATE desk_orders SET version = ?2, changed_by = ?3, claimed_by = ?4, claimed_until = ?5 WHERE order_id = ?1",
            [.text(orderID), .int(row.version), .text(row.changedBy), .text(row.claimedBy), .int(row.claimedUntil)])
        try audit(AuditEntry(at: DeskTime.text(at), user: user, action: action, orderID: orderID, detail: detail))
    }

    public func claim(_ orderID: String, by user: String, until: Int64, now: Int64) throws(LedgerError) -> ClaimOutcome
    {
        try claim(orderID, by: user, until: until, now: now, onlyIfOpen: false) ?? .unknownOrder
    }

    /// `onlyIfOpen`: nil (nothing written) unless the order has no verdict and no live claim.
    private func claim(_ orderID: String, by user: String, until: Int64, now: Int64, onlyIfOpen: Bool)
        throws(LedgerError) -> ClaimOutcome?
    {
        try database.writing(keep: \.isClaimed) { () throws(LedgerError) -> ClaimOutcome? in
            guard var row = try lockedRow(orderID) else { return .unknownOrder }
            let holder = row.liveHolder(now: now)
            if onlyIfOpen, holder != nil || row.verdict != nil { return nil }
            if let holder, holder != user { return .heldBy(holder, until: row.claimedUntil ?? now) }
            row.version += 1
            row.changedBy = user
            row.claimedBy = user
            row.claimedUntil = until
            try save(orderID, row, .claim, by: user, at: now, detail: "until \(DeskTime.text(until))")
            return .claimed(until: until, version: row.version)
        }
    }

    /// Reads the open orders at the queue's top, and claims the first that is still open once
    /// its row is locked, each in a transaction of its own (one row locked at a time: two desks
    /// may wait for each other's row, never deadlock). A desk that finds an order taken
    /// meanwhile goes on to the next; each order is handed to one desk.
    public func claimNext(by user: String, until: Int64, now: Int64) throws(LedgerError) -> (
        orderID: String, outcome: ClaimOutcome
    )? {
        let query = QueueQuery(QueueFilter(status: .open, limit: 16), now: now, dialect: database.dialect)
        while true {
            let candidates = try database.rows(query.select, query.values) { $0.text(0) }
            guard !candidates.isEmpty else { return nil }
            for id in candidates {
                if let outcome = try claim(id, by: user, until: until, now: now, onlyIfOpen: true), outcome.isClaimed {
                    return (id, outcome)
                }
            }
            // All taken by other desks since they were read: read the top again.
        }
    }

    public func release(_ orderID: String, by user: String, asLead: Bool, now: Int64) throws(LedgerError)
        -> ReleaseOutcome
    {
        try database.writing(keep: \.isReleased) { () throws(LedgerError) -> ReleaseOutcome in
            guard var row = try lockedRow(orderID) else { return .unknownOrder }
            guard let holder = row.liveHolder(now: now) else { return .notClaimed }
            if holder != user, !asLead { return .heldBy(holder) }
            row.claimedBy = nil
            row.claimedUntil = nil
            try save(orderID, row, .release, by: user, at: now, detail: holder == user ? nil : "\(holder)'s claim")
            return .released
        }
    }

    public func addNote(_ orderID: String, by user: String, text: String, at: Int64) throws(LedgerError) -> Int64? {
        try database.writing { () throws(LedgerError) -> Int64? in
            guard var row = try lockedRow(orderID) else { return nil }
            row.version += 1
            row.changedBy = user
            try save(orderID, row, .note, by: user, at: at, detail: DeskOrderRow.excerpt(text))
            try database.run(
                #"INSERT INTO desk_notes(order_id, "by", at, text) VALUES (?1, ?2, ?3, ?4)"#,
                [.text(orderID), .text(user), .text(DeskTime.text(at)), .text(text)])
            return row.version
        }
    }

    public func giveVerdict(
        _ orderID: String, verdict: String, note: String?, by user: String, version: Int64?, bulk: Bool, at: Int64
    ) throws(LedgerError) -> VerdictOutcome {
        try database.writing(keep: \.isRecorded) { () throws(LedgerError) -> VerdictOutcome in
            guard var row = try lockedRow(orderID) else { return .unknownOrder }
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
            try save(
                orderID, row, bulk ? .bulkVerdict : .verdict, by: user, at: at,
                detail: "\(verdict), replacing \(replaced ?? "none")")
            try database.run(
                "UPDATE desk_orders SET verdict = ?2, verdict_by = ?3, verdict_at = ?4, verdict_note = ?5 WHERE order_id = ?1",
                [.text(orderID), .text(verdict), .text(user), .text(when), .text(note)])
            // Out of the open queue's index range at once.
            try database.run("UPDATE flagged_orders SET decided = 1 WHERE order_id = ?1", [.text(orderID)])
            // Kept apart until a run applies it: the run in progress judges without it.
            try database.run(
                #"INSERT INTO desk_verdicts(order_id, verdict, note, "by", at) VALUES (?1, ?2, ?3, ?4, ?5)"#,
                [.text(orderID), .text(verdict), .text(note), .text(user), .text(when)])
            return .recorded(replaced: replaced, version: row.version)
        }
    }
}

extension ClaimOutcome {
    fileprivate var isClaimed: Bool {
        if case .claimed = self { return true }
        return false
    }
}

extension ClaimOutcome? {
    fileprivate var isClaimed: Bool { self?.isClaimed ?? false }
}

extension ReleaseOutcome {
    fileprivate var isReleased: Bool { self == .released }
}

extension VerdictOutcome {
    fileprivate var isRecorded: Bool {
        if case .recorded = self { return true }
        return false
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
