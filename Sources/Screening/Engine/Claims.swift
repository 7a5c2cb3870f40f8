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

/// What claiming needs of one purchase: its key, when it was bought, and whether it may
/// legitimately be credited twice (a same-user restore, family sharing).
public struct ClaimCandidate: Sendable, Equatable {
    public var key: String?
    public var purchaseDate: Timestamp?
    /// What the receipt says of the product type; nil: ask the catalog.
    public var nonConsumable: Bool?
    public var familyShared: Bool

    public init(_ p: Purchase, platform: Platform) {
        key = claimKey(p, platform: platform)
        purchaseDate = p.purchaseDate
        switch p.productType {
        case nil, .unknown?: nonConsumable = nil
        case .nonConsumable?: nonConsumable = true
        default: nonConsumable = false
        }
        familyShared = p.ownership == "FAMILY_SHARED"
    }

    /// A candidate with nothing known yet (to fill field by field).
    public static let empty = ClaimCandidate()

    private init() {
        key = nil
        purchaseDate = nil
        nonConsumable = nil
        familyShared = false
    }

    /// The transaction as people know it: the key without its store prefix.
    public var transactionText: String? { key.map(ClaimKey.bare) }
}

/// The order that claims: who, when, and what the catalog says it bought.
public struct Claimant: Sendable {
    public var orderID: String
    public var userID: String
    public var createdAt: Timestamp
    public var catalogType: ProductType?
    /// How the caller finds this claimant again (see `ClaimBook(claimOf:)`); nil: the book
    /// keeps a copy of the claim.
    public var handle: Int32?

    public init(orderID: String, userID: String, createdAt: Timestamp, catalogType: ProductType?, handle: Int32? = nil)
    {
        self.orderID = orderID
        self.userID = userID
        self.createdAt = createdAt
        self.catalogType = catalogType
        self.handle = handle
    }

    public init(_ o: ScreenOrder) {
        self.init(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt, catalogType: o.catalogType)
    }
}

/// Which purchase of its receipt an order gets, decided in claim order.
public enum Selection: Sendable, Equatable {
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
/// A night of a million orders keeps a million claims: each is stored once, and the
/// dictionary holds only its index.
public struct ClaimBook {
    /// Key -> holder: a caller's handle (>= 0), or -(index + 1) into `kept`.
    private var taken: [String: Int32] = [:]
    /// Claims the book keeps itself: the ledger's (the first `remembered`), then claimants
    /// without a handle.
    private var kept: [Claim] = []
    private var remembered = 0
    private let claimOf: (Int32) -> Claim

    /// `claimOf` gives back the claim of a claimant by its handle, so a night of a million
    /// orders does not keep a second copy of every order id and user id.
    public init(claimOf: @escaping (Int32) -> Claim) {
        self.claimOf = claimOf
    }

    public init() {
        self.init(claimOf: { _ in Claim(orderID: "", userID: "", createdAt: Timestamp(clampingMillis: 0)) })
    }

    /// The keys newly taken tonight by claimants with a handle, in no particular order, for
    /// the ledger to remember (`claim(ofHandle:)` gives each claim, so none is copied here).
    /// Claimants without one are a sharded run's other shards' orders: theirs to hand over.
    public var newHandledClaims: [(key: String, handle: Int32)] {
        taken.compactMap { key, v in v >= 0 ? (key, v) : nil }
    }

    /// The claim of the claimant with this handle (as `claimOf` gives it).
    public func claim(ofHandle handle: Int32) -> Claim { claimOf(handle) }

    /// Room for `count` keys at once: a night of a million claims then never holds the
    /// table twice while it grows.
    public mutating func reserve(_ count: Int) {
        taken.reserveCapacity(count)
    }

    /// Seeds the ledger's earlier claims (looked up in bulk beforehand), before any is taken.
    public mutating func remember(_ earlier: [String: Claim]) {
        for (k, c) in earlier where taken[k] == nil {
            kept.append(c)
            taken[k] = -Int32(kept.count)
        }
        remembered = kept.count
    }

    /// Who took `key` first: the claim, the claimant's handle when it has one, and whether
    /// the claim is the ledger's (an earlier night's) rather than tonight's.
    public func taker(of key: String) -> (claim: Claim, handle: Int32?, remembered: Bool)? {
        guard let v = taken[key], let c = holder(key) else { return nil }
        return (c, v >= 0 ? v : nil, v < 0 && Int(-v) <= remembered)
    }

    private func holder(_ key: String) -> Claim? {
        taken[key].map(claim(heldAs:))
    }

    /// The claim behind a value of `taken`: a caller's handle, or a place among the kept.
    private func claim(heldAs v: Int32) -> Claim {
        v >= 0 ? claimOf(v) : kept[Int(-v) - 1]
    }

    /// Takes `key` for `c` when nobody holds it (nil); else who holds it, untouched.
    private mutating func takeIfFree(_ key: String, _ c: Claim, handle: Int32?) -> Int32? {
        // The caller's handle, or the place the claim will have among the kept ones.
        let mine = handle ?? -Int32(kept.count + 1)
        var inserted = false
        let held = Self.value(
            of: &taken[
                key,
                default: {
                    inserted = true
                    return mine
                }()])
        guard inserted else { return held }
        if handle == nil { kept.append(c) }
        return nil
    }

    /// A dictionary entry's value through its `default:` subscript, which inserts the default
    /// when the key is missing, in the one lookup.
    private static func value(of entry: inout Int32) -> Int32 { entry }

    public mutating func select(for order: ScreenOrder, digest: ReceiptDigest) -> Selection {
        select(
            for: Claimant(order), candidates: digest.candidates.map { ClaimCandidate($0, platform: digest.platform) })
    }

    /// Picks the candidate nearest before the order's credit that nobody else took; takes it.
    public mutating func select(for order: Claimant, candidates: [ClaimCandidate]) -> Selection {
        let ranked = ClaimBook.preference(candidates, before: order.createdAt)
        guard !ranked.isEmpty else { return .none }
        let me = Claim(orderID: order.orderID, userID: order.userID, createdAt: order.createdAt)
        var firstConflict: (Int, Claim, String)?
        for i in ranked {
            guard let (holder, key) = conflict(over: candidates[i], for: order, as: me) else { return .picked(i) }
            if firstConflict == nil { firstConflict = (i, holder, key) }
        }
        guard let (i, original, key) = firstConflict else { return .none }
        return Self.lost(i, candidates[i], to: original, key: key, by: order)
    }

    /// `select` with one candidate purchase (most orders): the same choice, without the lists
    /// (two arrays an order, a million a night).
    public mutating func select(for order: Claimant, candidate: ClaimCandidate) -> Selection {
        let me = Claim(orderID: order.orderID, userID: order.userID, createdAt: order.createdAt)
        guard let (holder, key) = conflict(over: candidate, for: order, as: me) else { return .picked(0) }
        return Self.lost(0, candidate, to: holder, key: key, by: order)
    }

    /// Nil when `order` may have candidate `c` (its key then taken if it was free); else who
    /// holds the key, and the key.
    private mutating func conflict(over c: ClaimCandidate, for order: Claimant, as me: Claim) -> (Claim, String)? {
        guard let key = c.key else { return nil }
        // Taken now if nobody holds it: one lookup of the key, not three (a million a night).
        guard let held = takeIfFree(key, me, handle: order.handle) else { return nil }
        let holder = claim(heldAs: held)
        // Family sharing gives each member the purchase: not a replay.
        guard holder.orderID != order.orderID, !c.familyShared else { return nil }
        return (holder, key)
    }

    /// Candidate `i`, held by `original`: a restore of the holder's own non-consumable, else a replay.
    private static func lost(_ i: Int, _ c: ClaimCandidate, to original: Claim, key: String, by order: Claimant)
        -> Selection
    {
        let nonConsumable = c.nonConsumable ?? (order.catalogType == .nonConsumable)
        if nonConsumable, original.userID == order.userID {
            return .restore(candidate: i, original: original)
        }
        return .replayOf(candidate: i, original: original, key: key)
    }

    /// The candidate an order would pick were all free (`preference`'s first); nil for none.
    public static func likeliest(_ candidates: [ClaimCandidate], before t: Timestamp) -> Int? {
        preference(candidates, before: t).first
    }

    /// Candidate indices, best first: purchased at or before the credit (nearest first),
    /// then after it (nearest first), then undated.
    static func preference(_ candidates: [ClaimCandidate], before t: Timestamp) -> [Int] {
        if candidates.count == 1 { return [0] }
        return candidates.indices.sorted { a, b in
            func rank(_ i: Int) -> (Int, Int64) {
                guard let d = candidates[i].purchaseDate else { return (2, 0) }
                return d <= t ? (0, t.millis - d.millis) : (1, d.millis - t.millis)
            }
            let ra = rank(a)
            let rb = rank(b)
            return ra != rb ? (ra.0 != rb.0 ? ra.0 < rb.0 : ra.1 < rb.1) : a < b
        }
    }

    /// Every key an order could take, for the bulk ledger lookup.
    public static func keys(of digest: ReceiptDigest) -> [String] {
        digest.candidates.compactMap { claimKey($0, platform: digest.platform) }
    }
}
