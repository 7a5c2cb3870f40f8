import IAPBasics
import PostgresClient

/// The users' consents of a PostgreSQL ledger (`RememberedConsent`): looked up by user and
/// by account token, and merged from a night's staging table, the latest said staying.
extension PostgresLedger {
    public func consents(of users: [String]) throws(LedgerError) -> [String: RememberedConsent] {
        guard let lookupConsents else { return [:] }
        return try lookUp(lookupConsents.byUser, users) { r, i throws(PostgresError) in
            try PostgresLedger.consent(r, i, from: 0)
        }
    }

    public func consents(ofAccountTokens tokens: [String]) throws(LedgerError) -> [String: RememberedConsent] {
        guard let lookupConsents else { return [:] }
        return try lookUp(lookupConsents.byFolded, tokens.map(RememberedConsent.folded)) { r, i throws(PostgresError) in
            try PostgresLedger.consent(r, i, from: 1)
        }
    }

    /// A consent from columns user_id, consent, said_at, order_id starting at `first`; nil
    /// for a time out of range.
    static func consent(_ r: PostgresResult, _ i: Int, from first: Int) throws(PostgresError) -> RememberedConsent? {
        guard let user = try r.text(i, first), let consented = try r.bool(i, first + 1),
            let at = try r.int64(i, first + 2).flatMap({ Timestamp(millis: $0, hasMilliseconds: $0 % 1000 != 0) }),
            let order = try r.text(i, first + 3)
        else { return nil }
        return RememberedConsent(userID: user, consented: consented, saidAt: at, orderID: order)
    }
}

/// A night's consents, staged like its other rows (`staging`'s night_consents) and merged:
/// per user the latest said of tonight's (the later given on a tie), then the later of the
/// ledger's and that (tonight's on a tie).
let mergeConsents = """
    INSERT INTO iapscreen.consents AS c(user_id, folded, consent, said_at, order_id)
    SELECT DISTINCT ON (user_id) user_id, folded, consent, said_at, order_id FROM pg_temp.night_consents
    ORDER BY user_id, said_at DESC, n DESC
    ON CONFLICT (user_id) DO UPDATE SET consent = excluded.consent, said_at = excluded.said_at,
        order_id = excluded.order_id
    WHERE excluded.said_at >= c.said_at
    """

extension PostgresCopyRows {
    /// user_id, folded, consent, said_at, order_id
    mutating func add(_ c: RememberedConsent) {
        add(c.userID)
        add(RememberedConsent.folded(c.userID))
        add(c.consented ? "t" : "f")
        add(c.saidAt.millis)
        add(c.orderID)
    }
}
