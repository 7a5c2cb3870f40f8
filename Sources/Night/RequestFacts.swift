import Consumption
import DumpFormats
import IAPBasics
import Ledger
import ReceiptFormats
import Screening

/// What tonight's dumps and the ledger know of each refund request's transaction
/// (docs/consumption.md): the order that took it first (tonight's claims, else the ledger's),
/// that order's status and `consumed` as tonight's dump says them, its user (else the user
/// whose id is the request's account token), the user's latest consent in tonight's dump, the
/// user's refunds and a reviewer's verdict on the order.
enum RequestFacts {
    static func gather(
        _ requests: [ConsumptionRequest], night: NightLoader, claims: NightScreener.Claims, rules: RulesDirectory,
        ledger: (any LedgerStore)?
    ) throws(LedgerError) -> [ConsumptionFacts] {
        guard !requests.isEmpty else { return [] }
        let keys = requests.map { ClaimKey.apple(transactionID: $0.transactionID) }
        // Tonight's claims hold the ledger's claims of the keys tonight's orders may take; the
        // others are asked of the ledger.
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
        let tonight = TonightsDump(
            night, tokens: Set(requests.compactMap { $0.accountToken?.lowercased() }), transactions: unclaimed)

        return zip(requests, keys).map { request, key in
            var facts = ConsumptionFacts()
            if let key, let taker = takers[key] {
                let slot = taker.tonight ?? tonightsSlots[taker.claim.orderID]
                facts.order = takingOrder(request, taker.claim, slot: slot, night: night, rules: rules)
                facts.userID = taker.claim.userID
                facts.userSource = "the order's user"
                facts.verdict = verdicts[taker.claim.orderID]?.verdict
            } else if let slot = tonight.naming[request.transactionID] {
                // An order that names the transaction but took nothing: not credited tonight.
                let o = night.slots[Int(slot)].order
                let claim = Claim(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt)
                facts.order = takingOrder(request, claim, slot: slot, night: night, rules: rules)
                facts.userID = o.userID
                facts.userSource = "the order's user"
            } else if let token = request.accountToken?.lowercased(), let user = tonight.byToken[token] {
                facts.userID = user
                facts.userSource = "the user whose id is the transaction's appAccountToken"
            }
            if let user = facts.userID {
                facts.refunds = refunds[user] ?? 0
                if let consent = tonight.consent[user] {
                    facts.consent = consent
                    facts.consentSource = "tonight's dump"
                }
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

    /// What tonight's dump says that the claims do not: each user's latest stated consent (by
    /// the order's `created_at`, the later row on a tie), the users whose id is a request's
    /// account token, and the orders that name a transaction no order took (their row's
    /// `transaction_id`: not credited). One pass over the night.
    private struct TonightsDump {
        var consent: [String: OrderConsent] = [:]
        var byToken: [String: String] = [:]
        var naming: [String: Int32] = [:]

        init(_ night: NightLoader, tokens: Set<String>, transactions: Set<String>) {
            var latest: [String: Int64] = [:]
            for i in night.slots.indices {
                night.slots.with(i) { s in
                    let order = s.pointee.order
                    if let txn = order.transactionID, transactions.contains(txn) { naming[txn] = Int32(i) }
                    if !tokens.isEmpty, tokens.contains(order.userID.lowercased()) {
                        byToken[order.userID.lowercased()] = order.userID
                    }
                    guard let c = order.consent else { return }
                    let at = order.createdAt.millis
                    if at >= latest[order.userID] ?? .min {
                        latest[order.userID] = at
                        consent[order.userID] = c
                    }
                }
            }
        }
    }
}
