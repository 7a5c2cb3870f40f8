import Consumption
import DumpFormats
import IAPBasics
import Ledger
import ReceiptFormats
import Screening

/// What tonight's dumps and the ledger know of each refund request's transaction
/// (docs/consumption.md): the order that took it first (tonight's claims, else the ledger's),
/// that order's status and `consumed` as tonight's dump says them, its user (else the user
/// whose id is the request's account token, tonight's or the ledger's), the user's latest
/// consent (tonight's dump, else the ledger's), the user's refunds and a reviewer's verdict
/// on the order.
enum RequestFacts {
    static func gather(
        _ requests: [ConsumptionRequest], night: NightLoader, claims: NightScreener.Claims, rules: RulesDirectory,
        ledger: (any LedgerStore)?
    ) throws(LedgerError) -> [ConsumptionFacts] {
        let found = try gatherInPart(requests, night: night, claims: claims, rules: rules, ledger: ledger)
        let users = Set(found.facts.compactMap(\.facts.userID))
        return try withConsents(
            found.facts.map(\.facts), users: users, tonight: TonightsConsents.latest(in: night, of: users),
            refunds: found.refunds, ledger: ledger)
    }

    /// A request's facts as one part of a night (or the whole night) found them, and how much
    /// of them that part holds: the order that took the transaction (3), else an order that
    /// names it (2), else the user whose id is the request's account token (1), each of the
    /// later input position above an earlier one; 0: only what the claims and the ledger say,
    /// which every part says alike.
    struct Found {
        var facts: ConsumptionFacts
        var weight: (Int, Int64)
    }

    /// Each request's facts from one part's orders, without the user's consent; the users'
    /// refunds as the claims counted them.
    static func gatherInPart(
        _ requests: [ConsumptionRequest], night: NightLoader, claims: NightScreener.Claims, rules: RulesDirectory,
        ledger: (any LedgerStore)?
    ) throws(LedgerError) -> (facts: [Found], refunds: [String: Int]) {
        guard !requests.isEmpty else { return ([], [:]) }
        let keys = requests.map { ClaimKey.apple(transactionID: $0.transactionID) }
        // Tonight's claims hold the ledger's claims of the keys tonight's orders may take (and
        // the requests name); the others are asked of the ledger.
        var takers: [String: (claim: Claim, tonight: Int32?)] = [:]
        for key in keys.compactMap({ $0 }) {
            if let t = claims.book.taker(of: key) { takers[key] = (t.claim, t.handle) }
        }
        let unknown = Array(Set(keys.compactMap { $0 }.filter { takers[$0] == nil }))
        if let ledger, !unknown.isEmpty {
            for (key, found) in try ledger.claimsWithDetails(of: unknown) { takers[key] = (found.claim, nil) }
        }
        let orderIDs = Set(takers.values.map(\.claim.orderID))
        let tonightsSlots = night.slots(ofOrders: orderIDs)
        let verdicts = try ledger?.reviews(of: Array(orderIDs)) ?? [:]
        // With store events judged tonight, the claims counted the ledger's refunds and tonight's.
        var refunds = claims.events?.refundsPerUser ?? [:]
        if claims.events == nil, let ledger { refunds = try ledger.refundsPerUser() }
        let unclaimed = Set(
            zip(requests, keys).compactMap { r, key in key.flatMap { takers[$0] } == nil ? r.transactionID : nil })
        let tokens = Set(requests.compactMap { $0.accountToken.map(RememberedConsent.folded) })
        let tonight = TonightsDump(night, tokens: tokens, transactions: unclaimed)
        // Users tonight does not name: their consent as the ledger keeps it, and the users of
        // tokens no order of tonight's has (the ledger knows a user by a consent it keeps).
        let tokensOnlyKnownToLedger = tokens.filter { tonight.byToken[$0] == nil }
        let ledgerByToken = try ledger?.consents(ofAccountTokens: Array(tokensOnlyKnownToLedger)) ?? [:]
        func position(_ slot: Int32) -> Int64 { night.slots.with(Int(slot)) { Int64($0.pointee.position) } }

        let found = zip(requests, keys).map { request, key in
            var facts = ConsumptionFacts()
            var weight = (0, Int64(0))
            if let key, let taker = takers[key] {
                let slot = taker.tonight ?? tonightsSlots[taker.claim.orderID]
                facts.order = takingOrder(request, taker.claim, slot: slot, night: night, rules: rules)
                facts.userID = taker.claim.userID
                facts.userSource = "the order's user"
                facts.verdict = verdicts[taker.claim.orderID]?.verdict
                if slot != nil { weight = (3, 0) }
            } else if let slot = tonight.naming[request.transactionID] {
                // An order that names the transaction but took nothing: not credited tonight.
                let o = night.slots[Int(slot)].order
                let claim = Claim(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt)
                facts.order = takingOrder(request, claim, slot: slot, night: night, rules: rules)
                facts.userID = o.userID
                facts.userSource = "the order's user"
                weight = (2, position(slot))
            } else if let token = request.accountToken.map(RememberedConsent.folded),
                let user = tonight.byToken[token]?.userID ?? ledgerByToken[token]?.userID
            {
                facts.userID = user
                facts.userSource = "the user whose id is the transaction's appAccountToken"
                if let slot = tonight.byToken[token]?.slot { weight = (1, position(slot)) }
            }
            return Found(facts: facts, weight: weight)
        }
        return (found, refunds)
    }

    /// The facts of a night read in parts: of each request, what the part that holds the most
    /// of it found (on a tie, the earlier part), then each user's latest consent tonight
    /// (`tonight` gives those of these users), else the ledger's.
    static func joined(
        _ parts: [[Found]], refunds: [String: Int], tonight: (Set<String>) throws -> [String: RememberedConsent],
        ledger: (any LedgerStore)?
    ) throws -> [ConsumptionFacts] {
        guard var best = parts.first else { return [] }
        for part in parts.dropFirst() {
            for (k, f) in part.enumerated() where k < best.count && f.weight > best[k].weight { best[k] = f }
        }
        let users = Set(best.compactMap(\.facts.userID))
        return try withConsents(
            best.map(\.facts), users: users, tonight: try tonight(users), refunds: refunds, ledger: ledger)
    }

    /// Each fact's user's refunds and latest consent: tonight's dump's, else the ledger's.
    private static func withConsents(
        _ gathered: [ConsumptionFacts], users: Set<String>, tonight: [String: RememberedConsent],
        refunds: [String: Int], ledger: (any LedgerStore)?
    ) throws(LedgerError) -> [ConsumptionFacts] {
        let remembered = try ledger?.consents(of: Array(users.filter { tonight[$0] == nil })) ?? [:]
        return gathered.map { f in
            var facts = f
            guard let user = facts.userID else { return facts }
            facts.refunds = refunds[user] ?? 0
            if let c = tonight[user] {
                facts.consent = c.consented ? .yes : .no
                facts.consentSource = "tonight's dump (order \(c.orderID))"
            } else if let c = remembered[user] {
                facts.consent = c.consented ? .yes : .no
                facts.consentSource = "the ledger (order \(c.orderID) of \(c.saidAt.iso8601))"
            }
            return facts
        }
    }

    /// The order that took the transaction, as tonight's dump says it when it holds the order
    /// (an order known only from the ledger was credited when it took it).
    private static func takingOrder(
        _ request: ConsumptionRequest, _ claim: Claim, slot: Int32?, night: NightLoader, rules: RulesDirectory
    ) -> ConsumptionFacts.TakingOrder {
        let entry = request.productID.flatMap { rules.catalog.product($0, platform: .ios) }
        var order = ConsumptionFacts.TakingOrder(
            orderID: claim.orderID, userID: claim.userID, status: .credited,
            source: slot == nil ? "the ledger" : "tonight's dump", purchasedAt: request.purchaseDate ?? claim.createdAt,
            catalogType: entry?.type, sampleContent: entry?.sampleContent ?? false, periodDays: entry?.periodDays)
        if let slot {
            night.slots.with(Int(slot)) { s in
                order.status = s.pointee.order.status
                order.consumed = s.pointee.order.consumed
            }
        }
        return order
    }

    /// What tonight's dump says that the claims do not: the users whose id is a request's
    /// account token (folded), and the orders that name a transaction no order took (their
    /// row's `transaction_id`, or their receipt: not credited). One pass over the night.
    private struct TonightsDump {
        /// The user whose id folds to each token, with the slot of the (last) order saying it.
        var byToken: [String: (userID: String, slot: Int32)] = [:]
        var naming: [String: Int32] = [:]

        init(_ night: NightLoader, tokens: Set<String>, transactions: Set<String>) {
            guard !tokens.isEmpty || !transactions.isEmpty else { return }
            // Folding keeps the length of an ASCII id: the others cannot be a token's user.
            let lengths = Set(tokens.map(\.utf8.count))
            for i in night.slots.indices {
                night.slots.with(i) { s in
                    if let txn = s.pointee.order.transactionID, transactions.contains(txn) { naming[txn] = Int32(i) }
                    // Or its receipt names it (`NightLoader.uncreditedPurchase`; an Apple key is the id).
                    if s.pointee.order.status != .credited, let p = night.uncreditedPurchase(at: i),
                        transactions.contains(p.key)
                    {
                        naming[p.key] = Int32(i)
                    }
                    let userID = s.pointee.order.userID
                    if !tokens.isEmpty, lengths.contains(userID.utf8.count) || !userID.utf8.allSatisfy({ $0 < 0x80 }) {
                        let folded = RememberedConsent.folded(userID)
                        if tokens.contains(folded) { byToken[folded] = (userID, Int32(i)) }
                    }
                }
            }
        }
    }
}
