import IAPBasics

/// Judges the night's refunds and reversals against the orders that took their transactions
/// (docs/store-events.md): the first taker of a transaction is tonight's order, else the ledger's from
/// an earlier night (the claims decide, as for replays).
/// - refunded after the credit, order still credited: `refunded-after-credit`;
/// - refunded before the credit: `revoked` (a refunded purchase credited again);
/// - reversed, after a refund a finding reported (earlier tonight, or an earlier run):
///   `refund-reversed`;
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

    /// Which rule a refund calls for.
    public enum Call: Sendable {
        case refundedAfterCredit, revoked, refundReversed
    }

    /// A refund judged: small, so a night of many keeps them until its reports; the finding's
    /// words are made when it is reported.
    public struct Judged: Sendable {
        /// Index of the refund in the list judged.
        public var index: Int
        public var taker: Taker
        public var call: Call
        public var refund: StoreRefund

        public init(index: Int, taker: Taker, call: Call, refund: StoreRefund) {
            self.index = index
            self.taker = taker
            self.call = call
            self.refund = refund
        }

        public var rule: any NamedRule.Type {
            switch call {
            case .refundedAfterCredit: RefundedAfterCredit.self
            case .revoked: Revoked.self
            case .refundReversed: RefundReversed.self
            }
        }

        public var words: (message: String, evidence: Evidence) {
            switch call {
            case .refundedAfterCredit: RefundedAfterCredit.words(refund, creditedAt: taker.createdAt)
            case .revoked: Revoked.words(refund, creditedAt: taker.createdAt)
            case .refundReversed: RefundReversed.words(refund)
            }
        }
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

    /// Whether `refundsPerUser` and `reasons` are wanted (a custom rule or a refund request asks them).
    public var countsPerUser: Bool

    public init(countsPerUser: Bool = true) {
        self.countsPerUser = countsPerUser
    }

    /// `taker` finds a transaction's first taker by claim key; `reportedRefund` says whether an
    /// earlier run reported `refunded-after-credit` on an order (a refund judged so tonight,
    /// read before its reversal, counts too). `refunds` are tonight's events
    /// (counted matched or unmatched); `remembered`, judged after them, refunds the ledger
    /// keeps of transactions tonight's orders took. `alreadyCounted` names the keys whose
    /// refund `user.refunds` counts from the ledger already. A `Judged` index counts through
    /// both, tonight's first. `givenBack` names the keys of purchases whose order tonight's
    /// dump marks refunded: such an order took nothing, but its refund is matched (no finding).
    public func judge(
        _ refunds: some Sequence<StoreRefund>, remembered: [StoreRefund] = [], taker: (String) -> Taker?,
        givenBack: (String) -> Bool = { _ in false }, alreadyCounted: (String) -> Bool = { _ in false },
        reportedRefund: (String) -> Bool
    ) -> Outcome {
        var out = Outcome()
        var judgedKeys: Set<String> = []
        var reportedTonight: Set<String> = []
        var index = -1
        func judge(_ r: StoreRefund, tonight: Bool) {
            index += 1
            guard let t = taker(r.key) else {
                if tonight {
                    if givenBack(r.key) { out.matched += 1 } else { out.unmatched += 1 }
                }
                return
            }
            if tonight { out.matched += 1 }
            switch r.kind {
            case .refund:
                guard judgedKeys.insert(r.key).inserted else { return }
                if countsPerUser {
                    if !alreadyCounted(r.key) { out.refundsPerUser[t.userID, default: 0] += 1 }
                    if out.reasons[t.orderID] == nil, let reason = r.reason { out.reasons[t.orderID] = reason }
                }
                if t.createdAt < r.at {
                    guard t.stillCredited else { return }
                    out.judged.append(Judged(index: index, taker: t, call: .refundedAfterCredit, refund: r))
                    reportedTonight.insert(t.orderID)
                } else {
                    out.judged.append(Judged(index: index, taker: t, call: .revoked, refund: r))
                }
            case .reversal:
                guard reportedTonight.contains(t.orderID) || reportedRefund(t.orderID) else { return }
                out.judged.append(Judged(index: index, taker: t, call: .refundReversed, refund: r))
            }
        }
        for r in refunds { judge(r, tonight: true) }
        for r in remembered { judge(r, tonight: false) }
        return out
    }

    /// Tonight's replays of a refunded purchase credited on or after its refund: `revoked`
    /// too, beside their `replayed-transaction` (a refunded purchase credited again, by
    /// whichever order). `firstRefund` gives the first refund read of a key (tonight's, else
    /// the ledger's) with its judge's index; a replay credited before it is only a replay.
    public func revokedReplays(
        _ replays: [(key: String, taker: Taker)], firstRefund: (String) -> (index: Int, refund: StoreRefund)?
    ) -> [Judged] {
        var out: [Judged] = []
        for (key, taker) in replays {
            guard let (index, refund) = firstRefund(key), !(taker.createdAt < refund.at) else { continue }
            out.append(Judged(index: index, taker: taker, call: .revoked, refund: refund))
        }
        return out
    }
}
