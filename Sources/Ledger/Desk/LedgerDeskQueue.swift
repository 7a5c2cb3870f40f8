// What the desk reads of the queue and of one order, on either backend.
extension LedgerDeskStore {
    public func queue(_ filter: QueueFilter, now: Int64) throws(LedgerError) -> QueuePage {
        let query = QueueQuery(filter, now: now, dialect: database.dialect)
        return try database.reading { () throws(LedgerError) -> QueuePage in
            let orders = try database.rows(query.select, query.values) { LedgerDeskStore.queueOrder($0, now: now) }
            let total = try database.rows(query.count, Array(query.values.prefix(query.countValues))) { $0.int(0) }
            let next = orders.count == filter.limit ? orders.last?.place : nil
            return QueuePage(orders: orders, total: Int(clamping: total.first ?? 0), next: next)
        }
    }

    /// A queue row (`QueueQuery.columns`); a lapsed claim reads as none.
    static func queueOrder(_ r: DeskRow, now: Int64) -> QueueOrder? {
        guard let id = r.text(0), let severity = r.int(7), let rules = r.text(8), let first = r.text(9),
            let last = r.text(10)
        else { return nil }
        let until = r.int(12)
        let live = until.map { $0 > now } ?? false
        return QueueOrder(
            flagged: FlaggedOrderSummary(
                orderID: id, userID: r.text(1), platform: r.text(2), productID: r.text(3), amount: r.text(4),
                currency: r.text(5), createdAt: r.text(6), severity: Int(clamping: severity),
                rules: FlaggedOrderHead.rules(fromColumn: rules), firstFlaggedAt: first, lastFlaggedAt: last),
            claimedBy: live ? r.text(11) : nil, claimedUntil: live ? until : nil, verdict: r.text(13),
            verdictBy: r.text(14))
    }

    public func dossier(of orderID: String, now: Int64) throws(LedgerError) -> OrderDossier? {
        try database.reading { () throws(LedgerError) -> OrderDossier? in
            guard
                let head = try database.rows(
                    "SELECT \(QueueQuery.columns), f.last_run, f.block, d.version, d.verdict_at, d.verdict_note "
                        + "FROM flagged_orders f LEFT JOIN desk_orders d ON d.order_id = f.order_id WHERE f.order_id = ?1",
                    [.text(orderID)],
                    { r in
                        LedgerDeskStore.queueOrder(r, now: now).map {
                            (
                                order: $0, lastRun: r.int(15) ?? 0, block: r.int(16) ?? 0, version: r.int(17) ?? 0,
                                at: r.text(18), note: r.text(19)
                            )
                        }
                    }
                ).first
            else { return nil }
            let entry = try entry(of: orderID, run: head.lastRun, block: head.block)
            let user = try userFacts(head.order.flagged.userID)
            let notes = try database.rows(
                #"SELECT "by", at, text FROM desk_notes WHERE order_id = ?1 ORDER BY id"#, [.text(orderID)]
            ) { r -> DeskNote? in
                guard let by = r.text(0), let at = r.text(1), let text = r.text(2) else { return nil }
                return DeskNote(by: by, at: at, text: text)
            }
            let verdict = head.order.verdict.map {
                DeskVerdict(verdict: $0, by: head.order.verdictBy ?? "", at: head.at ?? "", note: head.note)
            }
            let (transactions, events) = try transactions(of: orderID)
            return OrderDossier(
                order: head.order, findings: entry?.lines ?? [], receipt: entry?.receipt,
                history: try history(of: orderID),
                transactions: transactions, storeEvents: events, user: user, verdict: verdict, notes: notes,
                version: head.version)
        }
    }

    /// The order's entry in a block of a run's; nil when the block is not there or does not
    /// hold it. A block that cannot be read is an error that names it.
    private func entry(of orderID: String, run: Int64, block: Int64) throws(LedgerError) -> FlaggedEntry? {
        let data = try database.rows(
            "SELECT data FROM flagged_blocks WHERE run = ?1 AND n = ?2", [.int(run), .int(block)]
        ) { $0.text(0) }.first
        guard let data else { return nil }
        return try FlaggedBlock(n: block, data: data).entry(of: orderID)
    }

    /// Each run that flagged the order, oldest first, with the rules it found.
    private func history(of orderID: String) throws(LedgerError) -> [(run: Int64, at: String, rules: [String])] {
        try database.rows(
            "SELECT h.run, coalesce(r.finished_at, ''), h.rules FROM (SELECT run, rules FROM flagged_history "
                + "WHERE order_id = ?1 UNION ALL SELECT last_run, rules FROM flagged_orders WHERE order_id = ?1) h "
                + "LEFT JOIN runs r ON r.id = h.run ORDER BY h.run",
            [.text(orderID)]
        ) { r in
            r.int(0).flatMap { run in
                r.text(2).map { (run, r.text(1) ?? "", FlaggedOrderHead.rules(fromColumn: $0)) }
            }
        }
    }

    /// The store transactions the order's receipt named, who took each first and who else named
    /// it, and the store's events on them.
    private func transactions(of orderID: String) throws(LedgerError) -> (
        [TransactionTaker], [(type: String, at: String, reason: String?)]
    ) {
        let keys = try database.rows("SELECT key FROM flagged_keys WHERE order_id = ?1 ORDER BY key", [.text(orderID)])
        {
            $0.text(0)
        }
        var transactions: [TransactionTaker] = []
        var events: [(type: String, at: String, reason: String?)] = []
        for key in keys {
            let taker = try database.rows("SELECT order_id, created_at FROM claims WHERE key = ?1", [.text(key)]) {
                r in r.text(0).flatMap { order in r.int(1).map { (order, $0) } }
            }.first
            let others = try database.rows(
                "SELECT order_id FROM flagged_keys WHERE key = ?1 AND order_id != ?2 ORDER BY order_id LIMIT 100",
                [.text(key), .text(orderID)]
            ) { $0.text(0) }
            transactions.append(
                TransactionTaker(
                    key: key, takenBy: taker?.0, takenAt: taker.map { DeskTime.text($0.1) },
                    alsoCreditedTo: others.filter { $0 != taker?.0 }))
            for (type, at, reason, reversed) in try database.rows(
                "SELECT event, refunded_at, reason, reversed_at FROM refunds WHERE key = ?1", [.text(key)],
                { r in r.text(0).flatMap { type in r.int(1).map { (type, $0, r.text(2), r.int(3)) } } })
            {
                events.append((type, DeskTime.text(at), reason))
                if let reversed { events.append(("REFUND_REVERSED", DeskTime.text(reversed), nil)) }
            }
        }
        return (transactions, events)
    }

    /// The user's flagged orders, the refunds remembered of their claims, their consent.
    private func userFacts(_ userID: String?) throws(LedgerError) -> UserFacts {
        guard let userID else { return UserFacts(orders: [], refunds: 0, consent: nil) }
        let orders = try database.rows(
            "SELECT order_id FROM flagged_orders WHERE user_id = ?1 ORDER BY severity DESC, first_flagged_at, order_id "
                + "LIMIT 200", [.text(userID)]
        ) { $0.text(0) }
        let refunds = try database.rows(
            "SELECT count(*) FROM refunds r JOIN claims c ON c.key = r.key WHERE c.user_id = ?1", [.text(userID)]
        ) { $0.int(0) }.first
        let consent = try database.rows("SELECT consent FROM consents WHERE user_id = ?1", [.text(userID)]) {
            $0.bool(0)
        }.first
        return UserFacts(orders: orders, refunds: Int(clamping: refunds ?? 0), consent: consent)
    }
}
