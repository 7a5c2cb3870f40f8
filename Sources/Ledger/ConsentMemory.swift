import IAPBasics

/// A user's consent to share their data with Apple (§13) as the ledger keeps it: the latest
/// that an order of theirs stated in a dump a run screened, so that a refund request on an
/// order of last month still knows it.
public struct RememberedConsent: Sendable, Equatable {
    public var userID: String
    public var consented: Bool
    /// The `created_at` of the order that stated it: a later one replaces it, an earlier not.
    public var saidAt: Timestamp
    public var orderID: String
    /// Where the stating order stood among the night's records, as a sharded run's workers
    /// compare them: the run's commit breaks a tie of `saidAt` between shards by it (the later
    /// order's statement stays, as in one run). 0 where no tie is broken with it: a consent the
    /// ledger gives back, or one a night records itself.
    public var position: Int64

    public init(userID: String, consented: Bool, saidAt: Timestamp, orderID: String, position: Int64 = 0) {
        self.userID = userID
        self.consented = consented
        self.saidAt = saidAt
        self.orderID = orderID
        self.position = position
    }

    /// A user id or account token as the ledger matches them: case-insensitively, since
    /// Apple spells an `appAccountToken` UUID in capitals and a server seldom does.
    public static func folded(_ id: String) -> String { id.lowercased() }
}

extension SQLiteLedger {
    /// The columns `consent(_:)` reads, in order.
    static let consentColumns = "user_id, consent, said_at, order_id"

    /// The remembered consents of these users, by user id.
    public func consents(of users: [String]) throws(LedgerError) -> [String: RememberedConsent] {
        guard let lookupConsent else { return [:] }
        return try db.lookUp(lookupConsent, users, SQLiteLedger.consent)
    }

    /// The remembered consent of the user whose id is each account token, matched
    /// case-insensitively, by the folded token (`RememberedConsent.folded`).
    public func consents(ofAccountTokens tokens: [String]) throws(LedgerError) -> [String: RememberedConsent] {
        guard let lookupConsentFolded else { return [:] }
        return try db.lookUp(lookupConsentFolded, tokens.map(RememberedConsent.folded), SQLiteLedger.consent)
    }

    /// A consent from `consentColumns`; nil for a time out of range.
    static func consent(_ s: LedgerStatement) -> RememberedConsent? {
        guard let user = s.text(0), let at = Timestamp(millis: s.int(2), hasMilliseconds: s.int(2) % 1000 != 0),
            let order = s.text(3)
        else { return nil }
        return RememberedConsent(userID: user, consented: s.int(1) != 0, saidAt: at, orderID: order)
    }
}
