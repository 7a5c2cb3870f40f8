import ReceiptFormats

/// The key one store transaction is claimed and remembered by, in the ledger as tonight:
///
///     Apple    the transaction id as it is (digits: short enough to be kept inline; "0" is none)
///     Google   `g:` + the orderId (renewals `..N` are distinct; never only digits)
///              `gt:` + the purchase token, for a test purchase (no orderId) and for a refund
///              that names only a token no known purchase holds yet
///
/// Keys stay `String`s (a night holds millions); this is the one place that spells them.
public enum ClaimKey {
    public static func apple(transactionID: String?) -> String? {
        guard let t = transactionID, !t.isEmpty, t != "0" else { return nil }
        return t
    }

    public static func google(orderID: String?) -> String? {
        guard let t = orderID, !t.isEmpty else { return nil }
        return "g:" + t
    }

    public static func google(token: String?) -> String? {
        guard let t = token, !t.isEmpty else { return nil }
        return "gt:" + t
    }

    /// A Google purchase's key: by its orderId, else (a test purchase) by its token.
    public static func google(orderID: String?, token: String?) -> String? {
        google(orderID: orderID) ?? google(token: token)
    }

    /// Whether `key` is a token's (`gt:`), not a transaction's.
    public static func isToken(_ key: String) -> Bool { key.hasPrefix("gt:") }

    /// What the store calls the transaction: the key without its prefix (`GPA.…`, a token).
    public static func bare(_ key: String) -> String {
        for prefix in ["gt:", "g:"] where key.hasPrefix(prefix) { return String(key.dropFirst(prefix.count)) }
        return key
    }

    /// The key in a person's words: `transaction 2000…` (Apple), `transaction GPA.…` (Google),
    /// `purchase token …`; a key's prefix is the ledger's, never theirs.
    public static func spoken(_ key: String) -> String {
        (isToken(key) ? "purchase token " : "transaction ") + bare(key)
    }

    /// The token's key a refund of the purchase keyed `key` may be kept under (the ledger
    /// keeps a refund by its token when no purchase named it yet); nil when `key` is one.
    public static func tokenKey(besides key: String, token: String?) -> String? {
        isToken(key) ? nil : google(token: token)
    }

    /// The keys a transaction id the server recorded may stand for, when which store's it is
    /// is not known (the platform may come only from a receipt that is not read).
    public static func recorded(_ transactionID: String?) -> [String] {
        [apple(transactionID: transactionID), google(orderID: transactionID)].compactMap { $0 }
    }
}

/// A receipt entry in a person's words: `transaction …` by its id, else `purchase token …`.
public func spokenName(of p: Purchase) -> String {
    if let t = p.transactionID { return "transaction " + t }
    return p.purchaseToken.map { "purchase token " + $0 } ?? "no transaction id"
}

/// The key of purchase `p` of a receipt of `platform`.
public func claimKey(_ p: Purchase, platform: Platform) -> String? {
    switch platform {
    case .ios: ClaimKey.apple(transactionID: p.transactionID)
    case .android: ClaimKey.google(orderID: p.transactionID, token: p.purchaseToken)
    }
}
