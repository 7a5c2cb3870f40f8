import IAPBasics
import Reporting
import Screening

/// What the night's store events did (CONTRACT §9): findings on tonight's orders join their
/// other findings; the rest — findings on orders of earlier nights, events not believed,
/// lines that are no event — are reports of their own after tonight's orders, in the order
/// the events were read.
struct EventOutcome: Sendable {
    var afterNight: [OrderReport] = []
    /// The findings the events gave tonight's orders, by slot (for `explain`).
    var bySlot: [Int32: [Finding]] = [:]
    var counts = StoreEventNight.Counts()
    var matched = 0
    var unmatched = 0
    /// For the custom-rule fields `user.refunds` and `event.reason`.
    var refundsPerUser: [String: Int] = [:]
    var reasons: [String: String] = [:]
}

extension NightScreener {
    func judge(_ events: StoreEventNight, book: ClaimBook, night: NightLoader,
               late: inout [Int32: [Finding]]) throws -> EventOutcome {
        var out = EventOutcome(counts: events.counts)
        // Orders tonight's dump marks refunded were given back already: no refund finding.
        var refundedTonight: Set<String> = []
        for i in night.slots.indices where night.slots.with(i, { $0.pointee.order.status == .refunded }) {
            refundedTonight.insert(night.slots[i].order.orderID)
        }
        let tokenKeys = tokenKeys(events.unresolvedTokens, night)
        var refunds: [StoreRefund] = []
        var refundAt: [Int: Int] = [:]  // item index -> refund index
        for (k, item) in events.items.enumerated() {
            guard case .refund(var r, let token) = item else { continue }
            if r.key.isEmpty {
                guard let token, let key = tokenKeys[token] else {
                    out.unmatched += 1  // a token no purchase of tonight's names
                    continue
                }
                r.key = key
                // The transaction as people know it: the purchase's order id, not its token.
                r.transaction = key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) } ?? key
            }
            refundAt[k] = refunds.count
            refunds.append(r)
        }
        // Transactions no order took tonight may have a first taker on an earlier night.
        let earlier = try ledger?.claims(of: refunds.map(\.key).filter { book.taker(of: $0) == nil }) ?? [:]
        func taker(_ key: String) -> RefundJudge.Taker? {
            if let t = book.taker(of: key) {
                return .init(orderID: t.claim.orderID, userID: t.claim.userID, createdAt: t.claim.createdAt,
                             slot: t.remembered ? nil : t.handle, stillCredited: !refundedTonight.contains(t.claim.orderID))
            }
            return earlier[key].map {
                .init(orderID: $0.orderID, userID: $0.userID, createdAt: $0.createdAt, slot: nil,
                      stillCredited: !refundedTonight.contains($0.orderID))
            }
        }
        let judged = RefundJudge().judge(refunds, taker: taker) { order in
            (try? ledger?.wasReported(orderID: order, rule: RefundedAfterCredit.id.rawValue)) == true
        }
        out.matched += judged.matched
        out.unmatched += judged.unmatched
        out.refundsPerUser = judged.refundsPerUser
        out.reasons = judged.reasons
        var byRefund: [Int: RefundJudge.Judged] = [:]
        for j in judged.judged { byRefund[j.index] = j }

        for (k, item) in events.items.enumerated() {
            switch item {
            case .malformed(let m):
                if let f = evaluator.nightFinding(MalformedRecord.self, orderID: nil, MalformedRecord.words(location: m.location, reason: m.reason)) {
                    out.afterNight.append(Self.eventReport(f, createdAt: nil, isOrder: false))
                }
            case .invalid(let type, let transaction, let location, let reason):
                let order = transaction.flatMap { taker($0) }
                let words = StoreEventInvalid.words(type: type, transaction: transaction, location: location, reason: reason)
                if let f = evaluator.nightFinding(StoreEventInvalid.self, orderID: order?.orderID, words) {
                    var finding = f
                    finding.userID = order?.userID
                    out.afterNight.append(Self.eventReport(finding, createdAt: order?.createdAt, isOrder: false))
                }
            case .refund:
                guard let r = refundAt[k], let j = byRefund[r],
                      let f = evaluator.eventFinding(j.rule, orderID: j.taker.orderID, userID: j.taker.userID,
                                                     createdAt: j.taker.createdAt, (j.message, j.evidence)) else { continue }
                if let slot = j.taker.slot {
                    late[slot, default: []].append(f)
                    out.bySlot[slot, default: []].append(f)
                } else {
                    out.afterNight.append(Self.eventReport(f, createdAt: j.taker.createdAt, isOrder: true))
                }
            }
        }
        return out
    }

    /// The claim keys of tonight's purchases that hold one of `tokens` (their orders were kept
    /// whole until now for this).
    private func tokenKeys(_ tokens: Set<String>, _ night: NightLoader) -> [String: String] {
        guard !tokens.isEmpty else { return [:] }
        var out: [String: String] = [:]
        for i in night.slots.indices {
            guard let digest = night.deferred(at: i)?.digest else { continue }
            for p in digest.candidates {
                if let token = p.purchaseToken, tokens.contains(token), let key = claimKey(p, platform: digest.platform) {
                    out[token] = key
                }
            }
        }
        return out
    }

    /// A report of its own for a finding after tonight's orders.
    static func eventReport(_ f: Finding, createdAt: Timestamp?, isOrder: Bool) -> OrderReport {
        OrderReport(orderID: f.orderID, userID: f.userID, platform: nil, productID: nil, amount: nil, currency: nil,
                    createdAt: createdAt, findings: [f], isOrder: isOrder)
    }
}
