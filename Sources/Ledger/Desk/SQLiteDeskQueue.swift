import SQLiteClient

// What the desk reads of the queue and of one order, from a SQLite ledger.
extension SQLiteDeskStore {
    public func queue(_ filter: QueueFilter, now: Int64) throws(LedgerError) -> QueuePage {
        let query = QueueQuery(filter, now: now, dialect: .sqlite)
        let values = query.values.map(SQLiteDeskStore.value)
        return try db.reading { () throws(LedgerError) -> QueuePage in
            let orders = try rows(query.select, values) { SQLiteDeskStore.queueOrder($0, now: now) }
            let total = try rows(query.count, Array(values.prefix(query.countValues))) { Int(clamping: $0.int(0)) }
            let next = orders.count == filter.limit ? orders.last?.place : nil
            return QueuePage(orders: orders, total: total.first ?? 0, next: next)
        }
    }

    static func value(_ v: QueueQuery.Value) -> SQLiteValue {
        switch v {
        case .text(let t): .text(t)
        case .int(let i): .int(i)
        }
    }

    /// A queue row (`QueueQuery.columns`); a lapsed claim reads as none.
    static func queueOrder(_ s: LedgerStatement, now: Int64) -> QueueOrder? {
        guard let id = s.text(0), let rules = s.text(8), let first = s.text(9), let last = s.text(10) else { return nil }
        let until = s.optionalInt(12)
        let live = until.map { $0 > now } ?? false
        return QueueOrder(
            flagged: FlaggedOrderSummary(
                orderID: id, userID: s.text(1), platform: s.text(2), productID: s.text(3), amount: s.text(4),
                currency: s.text(5), createdAt: s.text(6), severity: Int(clamping: s.int(7)),
                rules: FlaggedOrderRecord.rules(fromColumn: rules), firstFlaggedAt: first, lastFlaggedAt: last),
            claimedBy: live ? s.text(11) : nil, claimedUntil: live ? until : nil, verdict: s.text(13),
            verdictBy: s.text(14))
    }

    public func dossier(of orderID: String, now: Int64) throws(LedgerError) -> OrderDossier? {
        try db.reading { () throws(LedgerError) -> OrderDossier? in
            guard
                let head = try rows(
                    "SELECT \(QueueQuery.columns), f.last_run, f.receipt, d.version, d.verdict_at, d.verdict_note "
                        + "FROM flagged_orders f LEFT JOIN desk_orders d ON d.order_id = f.order_id WHERE f.order_id = ?1",
                    [.text(orderID)],
                    { s in
                        SQLiteDeskStore.queueOrder(s, now: now).map {
                            (order: $0, lastRun: s.int(15), receipt: s.text(16), version: s.int(17), at: s.text(18),
                             note: s.text(19))
                        }
                    }
                ).first
            else { return nil }
            let findings = try rows(
                "SELECT line FROM flagged_findings WHERE order_id = ?1 AND run = ?2 ORDER BY n",
                [.text(orderID), .int(head.lastRun)]
            ) { $0.text(0) }
            var history: [(run: Int64, at: String, rules: [String])] = []
            for (run, at, rule) in try rows(
                "SELECT ff.run, coalesce(r.finished_at, ''), ff.rule FROM flagged_findings ff LEFT JOIN runs r "
                    + "ON r.id = ff.run WHERE ff.order_id = ?1 ORDER BY ff.run, ff.rule",
                [.text(orderID)], { s in s.text(2).map { (s.int(0), s.text(1) ?? "", $0) } })
            {
                if history.last?.run == run {
                    if history[history.count - 1].rules.last != rule { history[history.count - 1].rules.append(rule) }
                } else {
                    history.append((run, at, [rule]))
                }
            }
            let keys = try rows("SELECT key FROM flagged_keys WHERE order_id = ?1 ORDER BY key", [.text(orderID)]) {
                $0.text(0)
            }
            var transactions: [TransactionTaker] = []
            var events: [(type: String, at: String, reason: String?)] = []
            for key in keys {
                let taker = try rows("SELECT order_id, created_at FROM claims WHERE key = ?1", [.text(key)]) {
                    s in s.text(0).map { ($0, s.int(1)) }
                }.first
                let others = try rows(
                    "SELECT order_id FROM flagged_keys WHERE key = ?1 AND order_id != ?2 ORDER BY order_id LIMIT 100",
                    [.text(key), .text(orderID)]
                ) { $0.text(0) }
                transactions.append(
                    TransactionTaker(
                        key: key, takenBy: taker?.0, takenAt: taker.map { DeskTime.text($0.1) },
                        alsoCreditedTo: others.filter { $0 != taker?.0 }))
                for (type, at, reason, reversed) in try rows(
                    "SELECT event, refunded_at, reason, reversed_at FROM refunds WHERE key = ?1", [.text(key)],
                    { s in s.text(0).map { ($0, s.int(1), s.text(2), s.optionalInt(3)) } })
                {
                    events.append((type, DeskTime.text(at), reason))
                    if let reversed { events.append(("REFUND_REVERSED", DeskTime.text(reversed), nil)) }
                }
            }
            let user = try userFacts(head.order.flagged.userID)
            let notes = try rows("SELECT by, at, text FROM desk_notes WHERE order_id = ?1 ORDER BY id", [.text(orderID)]) {
                s -> DeskNote? in
                guard let by = s.text(0), let at = s.text(1), let text = s.text(2) else { return nil }
                return DeskNote(by: by, at: at, text: text)
            }
            let verdict = head.order.verdict.map {
                DeskVerdict(verdict: $0, by: head.order.verdictBy ?? "", at: head.at ?? "", note: head.note)
            }
            return OrderDossier(
                order: head.order, findings: findings, receipt: head.receipt, history: history,
                transactions: transactions, storeEvents: events, user: user, verdict: verdict, notes: notes,
                version: head.version)
        }
    }

    /// The user's flagged orders, the refunds remembered of their claims, their consent.
    private func userFacts(_ userID: String?) throws(LedgerError) -> UserFacts {
        guard let userID else { return UserFacts(orders: [], refunds: 0, consent: nil) }
        let orders = try rows(
            "SELECT order_id FROM flagged_orders WHERE user_id = ?1 ORDER BY severity DESC, first_flagged_at, order_id "
                + "LIMIT 200", [.text(userID)]
        ) { $0.text(0) }
        let refunds = try rows(
            "SELECT count(*) FROM refunds r JOIN claims c ON c.key = r.key WHERE c.user_id = ?1", [.text(userID)]
        ) { Int(clamping: $0.int(0)) }.first ?? 0
        let consent = try rows("SELECT consent FROM consents WHERE user_id = ?1", [.text(userID)]) { $0.int(0) != 0 }
            .first
        return UserFacts(orders: orders, refunds: refunds, consent: consent)
    }
}
