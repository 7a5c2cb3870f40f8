import IAPBasics

/// A refund the ledger remembers for one claim key (docs/store-events.md): the earliest one given,
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

    public init(
        key: String, refundedAt: Timestamp, event: String, reason: String? = nil, source: String? = nil,
        identity: String, reversedAt: Timestamp? = nil
    ) {
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
        // One read transaction: a file read without locks is checked once, not once a row.
        return try db.reading { () throws(LedgerError) in
            let stmt = try db.prepare(
                "SELECT key, refunded_at, event, reason, source, identity, reversed_at FROM refunds")
            var out: [String: RememberedRefund] = [:]
            while try stmt.step() {
                if let r = SQLiteLedger.refund(stmt) { out[r.key] = r }
            }
            return out
        }
    }

    /// How many refunds completed runs left (none: tonight's claims need no refund lookups).
    public func refundCount() throws(LedgerError) -> Int {
        guard lookupRefund != nil else { return 0 }
        let stmt = try db.prepare("SELECT COUNT(*) FROM refunds")
        return try stmt.step() ? Int(clamping: stmt.int(0)) : 0
    }

    /// A refund from columns key, refunded_at, event, reason, source, identity, reversed_at; nil
    /// for a time out of range (no refund we can reason about: left out, as a claim's is).
    static func refund(_ s: LedgerStatement) -> RememberedRefund? {
        guard let key = s.text(0), let at = Timestamp(millis: s.int(1)), let event = s.text(2), let identity = s.text(5)
        else { return nil }
        return RememberedRefund(
            key: key, refundedAt: at, event: event, reason: s.text(3), source: s.text(4),
            identity: identity, reversedAt: s.optionalInt(6).flatMap { Timestamp(millis: $0) })
    }

    /// Remembered refunds per user whose claim they refund (`user.refunds`, docs/store-events.md): one
    /// per refunded claim.
    public func refundsPerUser() throws(LedgerError) -> [String: Int] {
        guard lookupRefund != nil else { return [:] }
        return try db.reading { () throws(LedgerError) in
            let stmt = try db.prepare(
                "SELECT c.user_id, COUNT(*) FROM refunds r JOIN claims c ON c.key = r.key GROUP BY c.user_id")
            var out: [String: Int] = [:]
            while try stmt.step() {
                if let user = stmt.text(0) { out[user] = Int(clamping: stmt.int(1)) }
            }
            return out
        }
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
}
