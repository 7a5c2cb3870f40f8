import IAPBasics
import Ledger
import ReceiptFormats
import Screening

/// The orders of a sharded run's other shards, as claiming needs them: who, when, and what
/// each may take. With them, a worker claims in the same order, over the same orders, as one
/// unsharded run, so which order is a transaction's original — and `user.orders` — come out
/// the same whichever shard screens which order.
struct ShardOrders {
    /// Handle nil: the claim book keeps their claims itself. `catalogType` is
    /// `.nonConsumable` when the catalog says so, else nil (all claiming asks of it).
    var claimants: [Claimant] = []
    /// Empty for an order that claims nothing (no receipt); it still counts for its user.
    var candidates: [[ClaimCandidate]] = []
    /// The Google purchase tokens a store event names alone that their purchases hold:
    /// token -> (claim key, the order's time and input position).
    var tokens: [String: [(key: String, at: Int64, position: Int64)]] = [:]
    /// The keys of the transactions the other shards' orders marked `refunded` tonight name:
    /// a refund of one is matched (no finding), on every worker alike.
    var givenBack: Set<String> = []
    /// The purchase tokens tonight's store events name alone that the receipts of those
    /// refunded orders hold, as `tokens` keeps those of credited orders.
    var givenBackTokens: [String: [(key: String, at: Int64, position: Int64)]] = [:]
    /// `user.orders`: how many credited orders the other shards screened for each of this
    /// worker's users (`countedUsers`), whether or not claiming keeps them.
    var ordersOfUsers: [String: Int] = [:]
    /// The users whose orders elsewhere are counted; nil when no rule asks `user.orders`.
    private let countedUsers: Set<String>?

    /// A staged row's `catalog` that marks an order tonight's dump says was refunded: it
    /// claims nothing and counts for nobody; its candidates' keys are what it names.
    static let givenBackMarker: Int64 = 2

    var count: Int { claimants.count }

    typealias StagedOrder = PostgresShardRun.StagedOrder

    /// None yet: `add` puts in the rows the other shards staged. `countedUsers`: the users
    /// whose orders elsewhere `ordersOfUsers` counts.
    init(countedUsers: Set<String>? = nil) {
        self.countedUsers = countedUsers
    }

    /// Adds a row another shard staged, as it is read; false when it is not what a worker writes.
    /// With `linked` (`LinkedKeys`), an order none of whose keys is among them is left out of
    /// the claims (its tokens and given-back keys are kept). `tokens`: the purchase tokens
    /// tonight's store events name alone (`tokens` keeps those).
    mutating func add(_ s: StagedOrder, linked: LinkedKeys.Filter? = nil, tokens wanted: Set<String> = []) -> Bool {
        guard let taken = StagedCandidates.decode(s.candidates) else { return false }
        if s.catalog == Self.givenBackMarker {
            for t in taken {
                guard let key = t.candidate.key else { continue }
                givenBack.insert(key)
                if let token = t.token, wanted.contains(token) {
                    givenBackTokens[token, default: []].append((key, s.createdAt.millis, s.position))
                }
            }
            return true
        }
        if let countedUsers, countedUsers.contains(s.userID) { ordersOfUsers[s.userID, default: 0] += 1 }
        for t in taken where !wanted.isEmpty {
            if let token = t.token, wanted.contains(token), let key = t.candidate.key {
                tokens[token, default: []].append((key, s.createdAt.millis, s.position))
            }
        }
        if let linked, !taken.contains(where: { $0.candidate.key.map(linked.keeps) ?? false }) {
            return true
        }
        claimants.append(
            Claimant(
                orderID: s.orderID, userID: s.userID, createdAt: s.createdAt,
                catalogType: s.catalog == 1 ? .nonConsumable : nil))
        candidates.append(taken.map(\.candidate))
        return true
    }

    /// Which of the other shards' rows `gathered` asks for; a reader may hand over more (they
    /// are judged here all the same), never fewer.
    enum Reading {
        /// Those that tie keys together: orders that may take several, and orders holding a
        /// Google token (when the events name one alone). Orders marked refunded are not asked.
        case linking
        /// Those that may take a key `filter` keeps (nil: every row), the orders marked refunded,
        /// and orders holding a Google token (when the events name one alone).
        case keeping(_ filter: LinkedKeys.Filter?)
    }

    /// The other shards' orders as `readOthers` hands them, one row at a time to `take` until
    /// it says stop. With `ownKeys` (`NightScreener.ownKeys`) they are read twice: first what
    /// ties keys together (`LinkedKeys`; `Reading.linking`), then only the orders tied to
    /// these keys (`Reading.keeping`). nil when a row is not
    /// what a worker writes. `tokens`: as `add` takes them; a purchase holding one is as if
    /// it were this worker's own (its key is what the event's refund turns out to name).
    /// `users`: this worker's, whose orders elsewhere are counted (`NightScreener.ownUsers`).
    static func gathered<E: Error>(
        ownKeys: [Int64]?, tokens: Set<String>, users: Set<String>?,
        readOthers: (_ reading: Reading, _ take: (StagedOrder) -> Bool) throws(E) -> Void
    ) throws(E) -> ShardOrders? {
        var others = ShardOrders(countedUsers: users)
        var readable = true
        guard let own = ownKeys else {
            try readOthers(.keeping(nil)) {
                readable = others.add($0, tokens: tokens)
                return readable
            }
            return readable ? others : nil
        }
        var linked = LinkedKeys(ownHashes: own)
        try readOthers(.linking) {
            guard let taken = StagedCandidates.decode($0.candidates) else {
                readable = false
                return false
            }
            guard $0.catalog != givenBackMarker else { return true }
            if taken.count > 1 { linked.link(taken.compactMap(\.candidate.key)) }
            if !tokens.isEmpty, taken.contains(where: { $0.token.map(tokens.contains) ?? false }) {
                linked.addOwn(taken.compactMap(\.candidate.key))
            }
            return true
        }
        guard readable else { return nil }
        let keys = linked.linked()
        try readOthers(.keeping(keys)) {
            readable = others.add($0, linked: keys, tokens: tokens)
            return readable
        }
        return readable ? others : nil
    }
}

extension NightScreener {
    /// The hashes of the keys this shard's decisions hang on, from which `LinkedKeys` grows:
    /// those its orders may take, and those tonight's store events name (whose first taker
    /// decides a refund's finding, a request's answer and the events' counts on every worker
    /// alike). nil when the claims need every other shard's order: a rule asks `user.refunds`
    /// or `event.reason` (what refunds a user's orders on other shards had). `user.orders`
    /// needs only how many orders each user has elsewhere (`ownUsers`).
    func ownKeys(_ night: NightLoader) -> [Int64]? {
        guard !evaluator.needsStoreEventFields else { return nil }
        var hashes = events.map(Self.namedKeys) ?? []
        hashes.reserveCapacity(hashes.count + night.slots.count)
        let slots = night.slots
        for i in slots.indices {
            if let box = night.deferred(at: i) {
                for key in ClaimBook.keys(of: box.digest) { hashes.append(LinkedKeys.hash(key)) }
            } else if let h = slots.with(i, { $0.pointee.candidate?.key.map(LinkedKeys.hash) }) {
                hashes.append(h)
            }
        }
        return hashes
    }

    /// The hashes of the claim keys tonight's events name: their refunds' and reversals', the
    /// transactions of events not believed, the refund requests'.
    private static func namedKeys(_ events: StoreEventNight) -> [Int64] {
        var hashes: [Int64] = []
        for i in 0..<events.refunds.count {
            let key = events.refunds[i].refund.key
            if !key.isEmpty { hashes.append(LinkedKeys.hash(key)) }
        }
        for case (_, .invalid(_, let transaction?, _, _)) in events.others {
            hashes.append(LinkedKeys.hash(transaction))
        }
        for r in events.requests {
            if let key = ClaimKey.apple(transactionID: r.transactionID) { hashes.append(LinkedKeys.hash(key)) }
        }
        return hashes
    }

    /// The users of this shard's orders, whose orders on the other shards `user.orders`
    /// counts; nil when no rule asks it.
    func ownUsers(_ night: NightLoader) -> Set<String>? {
        guard evaluator.needsOrdersPerUser else { return nil }
        var users: Set<String> = []
        for i in night.slots.indices { users.insert(night.slots.with(i) { $0.pointee.order.userID }) }
        return users
    }

    /// This shard's order in slot `i` as the others claim it, nil for none: every credited
    /// order that was screened (for `user.orders`), with what it may take.
    func stagedOrder(_ i: Int, _ night: NightLoader) -> PostgresShardRun.StagedOrder? {
        let slots = night.slots
        // The status is read in place: most slots are credited, and copying each costs.
        if slots.with(i, { $0.pointee.order.status == .refunded }) { return givenBack(i, night) }
        guard slots.with(i, { $0.pointee.order.status == .credited && $0.pointee.outcomeKind != nil }) else {
            return nil
        }
        let candidates: [(candidate: ClaimCandidate, token: String?)]
        if let box = night.deferred(at: i) {
            candidates = box.digest.candidates.map {
                (ClaimCandidate($0, platform: box.digest.platform), $0.purchaseToken)
            }
        } else if let c = slots.with(i, { $0.pointee.candidate }) {
            candidates = [(c, night.purchaseToken(at: i))]
        } else {
            candidates = []
        }
        // The catalog's word matters only where the receipt does not say.
        let asksCatalog = candidates.contains { $0.candidate.nonConsumable == nil }
        let catalog: Int64? =
            asksCatalog ? (screenOrder(slots[i], night).catalogType == .nonConsumable ? 1 : 0) : nil
        let o = slots[i].order
        return .init(
            orderID: o.orderID, userID: o.userID, createdAt: o.createdAt,
            position: night.sharedPosition(Int(slots.with(i) { $0.pointee.position })), catalog: catalog,
            candidates: StagedCandidates.encode(candidates),
            keyHashes: candidates.compactMap { $0.candidate.key.map(LinkedKeys.hash) }, several: candidates.count > 1,
            holdsToken: candidates.contains { $0.token != nil })
    }

    /// An order tonight's dump marks refunded, staged so the other shards count a refund of
    /// its purchase as matched: the transaction its row names (both spellings: its platform
    /// may be known only from the receipt) and the purchase its receipt names, with a Google
    /// purchase's token (`NightLoader.uncreditedPurchase`). Nil when neither names one.
    private func givenBack(_ i: Int, _ night: NightLoader) -> PostgresShardRun.StagedOrder? {
        let o = night.slots[i].order
        var named = ClaimKey.recorded(o.transactionID).map { (key: $0, token: String?.none) }
        if let p = night.uncreditedPurchase(at: i) {
            named.removeAll { $0.key == p.key }
            named.append((p.key, p.token))
        }
        guard !named.isEmpty else { return nil }
        let candidates = named.map { n -> (candidate: ClaimCandidate, token: String?) in
            var c = ClaimCandidate.empty
            c.key = n.key
            return (c, n.token)
        }
        return .init(
            orderID: o.orderID, userID: o.userID, createdAt: o.createdAt,
            position: night.sharedPosition(Int(night.slots.with(i) { $0.pointee.position })),
            catalog: ShardOrders.givenBackMarker, candidates: StagedCandidates.encode(candidates))
    }
}
