import IAPBasics

/// A refund the ledger remembers for one claim key (CONTRACT §9): the earliest one given,
/// and when Apple reversed it, so a refund given again on a later night is `seen`, and a
/// refunded transaction credited again is `revoked`.
public struct RememberedRefund: Sendable, Equatable {
    /// A claim key, as in `claims`: Apple transaction id, `g:` + order id, `gt:` + token.
    public var key: String
    public var refundedAt: Timestamp
    /// `REFUND`, `REVOKE`, `refund-history`, `voided`, `rtdn-voided`, `rtdn-revoked`.
    public var event: String
    public var reason: String?
    public var source: String?
    /// The store event that said it (its identity in `store_events`).
    public var identity: String
    public var reversedAt: Timestamp?

    public init(key: String, refundedAt: Timestamp, event: String, reason: String? = nil, source: String? = nil,
                identity: String, reversedAt: Timestamp? = nil) {
        self.key = key
        self.refundedAt = refundedAt
        self.event = event
        self.reason = reason
        self.source = source
        self.identity = identity
        self.reversedAt = reversedAt
    }
}

/// A store event the ledger has read: its type and the run that first read it (nil when
/// not known, e.g. a ledger copied from elsewhere).
public struct RememberedEvent: Sendable, Equatable {
    public var identity: String
    public var type: String
    public var firstRun: Int64?

    public init(identity: String, type: String, firstRun: Int64?) {
        self.identity = identity
        self.type = type
        self.firstRun = firstRun
    }
}

extension SQLiteLedger {
    /// The remembered refunds of these claim keys, by key.
    public func refunds(of keys: [String]) throws(LedgerError) -> [String: RememberedRefund] {
        guard let lookupRefund else { return [:] }
        return try db.lookUp(lookupRefund, keys, SQLiteLedger.refund)
    }

    /// Every remembered refund, by key: cheaper than a lookup per key when tonight takes more
    /// keys than the ledger has refunds (the usual night).
    public func allRefunds() throws(LedgerError) -> [String: RememberedRefund] {
        guard lookupRefund != nil else { return [:] }
        let stmt = try db.prepare("SELECT key, refunded_at, event, reason, source, identity, reversed_at FROM refunds")
        var out: [String: RememberedRefund] = [:]
        while try stmt.step() {
            if let r = SQLiteLedger.refund(stmt) { out[r.key] = r }
        }
        return out
    }

    /// How many refunds completed runs left (none: tonight's claims need no refund lookups).
    public func refundCount() throws(LedgerError) -> Int {
        guard lookupRefund != nil else { return 0 }
        let stmt = try db.prepare("SELECT COUNT(*) FROM refunds")
        return try stmt.step() ? Int(clamping: stmt.int(0)) : 0
    }

    /// A refund from columns key, refunded_at, event, reason, source, identity, reversed_at; nil
    /// for a time out of range (no refund we can reason about: left out, as a claim's is).
    private static func refund(_ s: SQLiteStatement) -> RememberedRefund? {
        guard let key = s.text(0), let at = Timestamp(millis: s.int(1)), let event = s.text(2), let identity = s.text(5)
        else { return nil }
        return RememberedRefund(key: key, refundedAt: at, event: event, reason: s.text(3), source: s.text(4),
                                identity: identity, reversedAt: s.optionalInt(6).flatMap { Timestamp(millis: $0) })
    }

    /// Remembered refunds per user whose claim they refund (`user.refunds`, CONTRACT §9): one
    /// per refunded claim.
    public func refundsPerUser() throws(LedgerError) -> [String: Int] {
        guard lookupRefund != nil else { return [:] }
        let stmt = try db.prepare("SELECT c.user_id, COUNT(*) FROM refunds r JOIN claims c ON c.key = r.key GROUP BY c.user_id")
        var out: [String: Int] = [:]
        while try stmt.step() {
            if let user = stmt.text(0) { out[user] = Int(clamping: stmt.int(1)) }
        }
        return out
    }

    /// Which of these store event identities an earlier completed run read.
    public func knownEvents(_ identities: [String]) throws(LedgerError) -> Set<String> {
        guard let lookupEvent else { return [] }
        return Set(try db.lookUp(lookupEvent, identities) { _ in () }.keys)
    }

    /// The store events of these identities that earlier completed runs read, by identity.
    public func events(_ identities: [String]) throws(LedgerError) -> [String: RememberedEvent] {
        guard let lookupEvent else { return [:] }
        return try db.lookUp(lookupEvent, identities) { s in
            guard let identity = s.text(0), let type = s.text(1) else { return nil }
            return RememberedEvent(identity: identity, type: type, firstRun: s.optionalInt(2))
        }
    }

    /// The store-event part of `record`, inside its transaction.
    func recordStoreEvents(_ run: RunRecord, runID: Int64) throws(LedgerError) {
        let event = try db.prepare("INSERT OR IGNORE INTO store_events(identity, type, first_run) VALUES (?, ?, ?)")
        for e in run.events.sorted(by: { $0.identity < $1.identity }) {
            event.bind(1, e.identity)
            event.bind(2, e.type)
            event.bind(3, runID)
            try event.run()
        }
        // The earliest refund of a key wins, whichever night it was read on.
        let refund = try db.prepare("""
            INSERT INTO refunds(key, refunded_at, event, reason, source, identity) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT(key) DO UPDATE SET refunded_at = excluded.refunded_at, event = excluded.event,
                reason = excluded.reason, source = excluded.source, identity = excluded.identity
            WHERE excluded.refunded_at < refunds.refunded_at
            """)
        // The earliest reversal stays too: a reversal logged again changes nothing.
        let reversal = try db.prepare(
            "UPDATE refunds SET reversed_at = ?2 WHERE key = ?1 AND (reversed_at IS NULL OR reversed_at > ?2)")
        func reverse(_ key: String, _ at: Timestamp) throws(LedgerError) {
            reversal.bind(1, key)
            reversal.bind(2, at.millis)
            try reversal.run()
        }
        for r in run.refunds {
            refund.bind(1, r.key)
            refund.bind(2, r.refundedAt.millis)
            refund.bind(3, r.event)
            refund.bind(4, r.reason)
            refund.bind(5, r.source)
            refund.bind(6, r.identity)
            try refund.run()
            if let at = r.reversedAt { try reverse(r.key, at) }
        }
        // After the refunds: a refund and its reversal may arrive on the same night.
        for r in run.reversals { try reverse(r.key, r.at) }
    }
}
