import IAPBasics

/// Judges the night's refunds and reversals against the orders that took their transactions
/// (CONTRACT §9): the first taker of a transaction is tonight's order, else the ledger's from
/// an earlier night (the claims decide, as for replays).
/// - refunded after the credit, order still credited: `refunded-after-credit`;
/// - refunded before the credit: `revoked` (a refunded purchase credited again);
/// - reversed, after a refund an earlier run reported: `refund-reversed`;
/// - nobody took it: unmatched, no finding (the ledger still remembers the refund).
/// One transaction is judged once a night: the first refund of it read wins.
public struct RefundJudge {
    /// The order that took a transaction first.
    public struct Taker: Sendable, Equatable {
        public var orderID: String
        public var userID: String
        public var createdAt: Timestamp
        /// Tonight's order, by its slot; nil: an order of an earlier night, known from the ledger.
        public var slot: Int32?
        /// Not marked `refunded` in tonight's dump (an order known only from the ledger is).
        public var stillCredited: Bool

        public init(orderID: String, userID: String, createdAt: Timestamp, slot: Int32?, stillCredited: Bool) {
            self.orderID = orderID
            self.userID = userID
            self.createdAt = createdAt
            self.slot = slot
            self.stillCredited = stillCredited
        }
    }

    public struct Judged: Sendable {
        /// Index of the refund in the list judged.
        public var index: Int
        public var taker: Taker
        public var rule: any NamedRule.Type
        public var refund: StoreRefund
        public var message: String
        public var evidence: Evidence
    }

    public struct Outcome: Sendable {
        /// In the order the events were read.
        public var judged: [Judged] = []
        public var matched = 0
        public var unmatched = 0
        /// Refunds matched to each user's orders (for `user.refunds`), and the reason of the
        /// first refund of each order (for `event.reason`).
        public var refundsPerUser: [String: Int] = [:]
        public var reasons: [String: String] = [:]
    }

    public init() {}

    /// `taker` finds a transaction's first taker by claim key; `reportedRefund` says whether an
    /// earlier run reported `refunded-after-credit` on an order. The first `tonight` refunds
    /// are tonight's events (counted matched or unmatched); those after them are refunds the
    /// ledger remembers. `alreadyCounted` names the keys whose refund `user.refunds` counts
    /// from the ledger already.
    public func judge(_ refunds: [StoreRefund], tonight: Int? = nil, taker: (String) -> Taker?,
                      alreadyCounted: (String) -> Bool = { _ in false }, reportedRefund: (String) -> Bool) -> Outcome {
        var out = Outcome()
        var judgedKeys: Set<String> = []
        let tonight = tonight ?? refunds.count
        for (index, r) in refunds.enumerated() {
            guard let t = taker(r.key) else {
                if index < tonight { out.unmatched += 1 }
                continue
            }
            if index < tonight { out.matched += 1 }
            switch r.kind {
            case .refund:
                guard judgedKeys.insert(r.key).inserted else { continue }
                if !alreadyCounted(r.key) { out.refundsPerUser[t.userID, default: 0] += 1 }
                if out.reasons[t.orderID] == nil, let reason = r.reason { out.reasons[t.orderID] = reason }
                if t.createdAt < r.at {
                    guard t.stillCredited else { continue }
                    let (m, e) = RefundedAfterCredit.words(r, creditedAt: t.createdAt)
                    out.judged.append(Judged(index: index, taker: t, rule: RefundedAfterCredit.self, refund: r, message: m, evidence: e))
                } else {
                    let (m, e) = Revoked.words(r, creditedAt: t.createdAt)
                    out.judged.append(Judged(index: index, taker: t, rule: Revoked.self, refund: r, message: m, evidence: e))
                }
            case .reversal:
                guard reportedRefund(t.orderID) else { continue }
                let (m, e) = RefundReversed.words(r)
                out.judged.append(Judged(index: index, taker: t, rule: RefundReversed.self, refund: r, message: m, evidence: e))
            }
        }
        return out
    }
}
