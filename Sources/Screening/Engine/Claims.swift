import IAPBasics
import ReceiptFormats

/// An order that took a store transaction.
public struct Claim: Sendable, Equatable {
    public var orderID: String
    public var userID: String
    public var createdAt: Timestamp

    public init(orderID: String, userID: String, createdAt: Timestamp) {
        self.orderID = orderID
        self.userID = userID
        self.createdAt = createdAt
    }
}

/// Memory of earlier nights: which order first took each store transaction.
public protocol ClaimLedger {
    /// Earlier claims of these keys, by key.
    func claims(of keys: [String]) throws -> [String: Claim]
}

/// No memory between runs (`--ledger none`).
public struct NoLedger: ClaimLedger {
    public init() {}
    public func claims(of keys: [String]) -> [String: Claim] { [:] }
}

/// The key one store transaction is remembered by: Apple transaction id, Google orderId
/// (renewals `..N` are distinct), or a Google test purchase's token.
public func claimKey(_ p: Purchase, platform: Platform) -> String? {
    switch platform {
    case .ios:
        guard let t = p.transactionID, !t.isEmpty, t != "0" else { return nil }
        return "apple:" + t
    case .android:
        if let t = p.transactionID, !t.isEmpty { return "google:" + t }
        if let token = p.purchaseToken, !token.isEmpty { return "google-token:" + token }
        return nil
    }
}

/// Which purchase of its receipt an order gets, decided in claim order.
public enum Selection: Sendable {
    /// No purchase could be this order's (no receipt, or none of the product).
    case none
    /// The order took this candidate (index into the digest's candidates).
    case picked(Int)
    /// Every candidate was taken; the nearest one's first taker.
    case replayOf(candidate: Int, original: Claim, key: String)
    /// A non-consumable restored by the same user: legitimate, nothing taken.
    case restore(candidate: Int, original: Claim)
}

/// Tonight's claims, made in (created_at, order_id) order on top of the ledger's.
public struct ClaimBook {
    private var taken: [String: Claim] = [:]
    /// Keys newly taken tonight, with their claim, for the ledger to remember.
    public private(set) var newClaims: [(key: String, claim: Claim)] = []

    public init() {}

    /// Seeds the ledger's earlier claims (looked up in bulk beforehand).
    public mutating func remember(_ earlier: [String: Claim]) {
        for (k, c) in earlier where taken[k] == nil { taken[k] = c }
    }

    /// Picks the candidate nearest before the order's credit that nobody else took; takes it.
    public mutating func select(for order: ScreenOrder, digest: ReceiptDigest) -> Selection {
        let ranked = ClaimBook.preference(digest.candidates, before: order.createdAt)
        guard !ranked.isEmpty else { return .none }
        let me = Claim(orderID: order.orderID, userID: order.userID, createdAt: order.createdAt)
        var firstConflict: (Int, Claim, String)?
        for i in ranked {
            let p = digest.candidates[i]
            guard let key = claimKey(p, platform: digest.platform) else { return .picked(i) }
            guard let holder = taken[key], holder.orderID != order.orderID else {
                if taken[key] == nil {
                    taken[key] = me
                    newClaims.append((key, me))
                }
                return .picked(i)
            }
            // Family sharing gives each member the purchase: not a replay.
            if p.ownership == "FAMILY_SHARED" { return .picked(i) }
            if firstConflict == nil { firstConflict = (i, holder, key) }
        }
        guard let (i, original, key) = firstConflict else { return .none }
        let p = digest.candidates[i]
        let type = p.productType ?? order.catalogType
        if type == .nonConsumable, original.userID == order.userID {
            return .restore(candidate: i, original: original)
        }
        return .replayOf(candidate: i, original: original, key: key)
    }

    /// Candidate indices, best first: purchased at or before the credit (nearest first),
    /// then after it (nearest first), then undated.
    static func preference(_ candidates: [Purchase], before t: Timestamp) -> [Int] {
        candidates.indices.sorted { a, b in
            func rank(_ i: Int) -> (Int, Int64) {
                guard let d = candidates[i].purchaseDate else { return (2, 0) }
                return d <= t ? (0, t.millis - d.millis) : (1, d.millis - t.millis)
            }
            let ra = rank(a), rb = rank(b)
            return ra != rb ? (ra.0 != rb.0 ? ra.0 < rb.0 : ra.1 < rb.1) : a < b
        }
    }

    /// Every key an order could take, for the bulk ledger lookup.
    public static func keys(of digest: ReceiptDigest) -> [String] {
        digest.candidates.compactMap { claimKey($0, platform: digest.platform) }
    }
}
