import IAPBasics
import Ledger
import Reporting
import Screening

/// What the night's store events (and the refunds the ledger remembers) did (CONTRACT §9):
/// findings on tonight's orders join their other findings; the rest — findings on orders of
/// earlier nights, events not believed, lines that are no event — are reports of their own
/// after tonight's orders, in the order the events were read.
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
    /// What the ledger is to remember of tonight's events.
    var memory = EventMemory()
}

/// Tonight's events as the ledger keeps them (`RunRecord`).
struct EventMemory: Sendable {
    var refunds: [RememberedRefund] = []
    var reversals: [(key: String, at: Timestamp)] = []
    var events: [(identity: String, type: String)] = []
}

/// A refund the ledger remembers of a transaction one of tonight's orders took (or took on
/// its own earlier run): judged with tonight's events, after them.
struct RememberedTaking {
    /// The key the order took (a Google claim's `g:` key even when the refund was kept under
    /// its token, `gt:`).
    var key: String
    var refund: RememberedRefund
}

extension NightScreener {
    /// Judges tonight's events (nil without `--store-events`) and the refunds the ledger
    /// remembers of transactions tonight's orders took.
    func judge(_ events: StoreEventNight?, remembered: [RememberedTaking], book: ClaimBook, night: NightLoader,
               late: inout [Int32: [Finding]]) throws -> EventOutcome {
        var out = EventOutcome(counts: events?.counts ?? .init())
        let items = events?.items ?? []
        // Orders tonight's dump marks refunded were given back already: no refund finding.
        var refundedTonight: Set<String> = []
        for i in night.slots.indices where night.slots.with(i, { $0.pointee.order.status == .refunded }) {
            refundedTonight.insert(night.slots[i].order.orderID)
        }
        // A token-only refund finds its purchase tonight, else among the ledger's claims.
        var tokenKeys = tokenKeys(events?.unresolvedTokens ?? [], night)
        if let ledger, let tokens = events?.unresolvedTokens.subtracting(tokenKeys.keys), !tokens.isEmpty {
            tokenKeys.merge(try ledger.claimKeys(forTokens: Array(tokens))) { tonight, _ in tonight }
        }
        var refunds: [StoreRefund] = []
        var refundAt: [Int: Int] = [:]  // item index -> refund index
        for (k, item) in items.enumerated() {
            guard case .refund(var r, let token, let identity) = item else { continue }
            if r.key.isEmpty, let token, let key = tokenKeys[token] {
                r.key = key
                // The transaction as people know it: the purchase's order id, not its token.
                r.transaction = key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) } ?? key
            }
            remember(r, token: token, identity: identity, in: &out.memory)
            guard !r.key.isEmpty else {
                out.unmatched += 1  // a token no purchase of tonight's or the ledger's names
                continue
            }
            refundAt[k] = refunds.count
            refunds.append(r)
        }
        out.memory.events = events?.believed.map { ($0.identity.hex, $0.type) } ?? []
        let tonightCount = refunds.count
        for m in remembered {
            var r = StoreRefund(kind: .refund, key: m.key, transaction: Self.transactionText(m.key), event: m.refund.event,
                                at: m.refund.refundedAt, location: nil)
            r.reason = m.refund.reason
            r.source = m.refund.source
            refunds.append(r)
        }

        // Transactions whose first taker is an earlier night's: the ledger's claim, with what it bought.
        var named = refunds.map(\.key)
        for case .invalid(_, let transaction?, _, _) in items { named.append(transaction) }
        let askLedger = Set(named.filter { book.taker(of: $0).map { $0.remembered } ?? true })
        let earlier = try ledger?.claimsWithDetails(of: Array(askLedger)) ?? [:]
        // An earlier night's claim whose order is in tonight's dump again (a rerun) is that order's.
        let rerunSlots = night.slots(ofOrders: Set(askLedger.compactMap { book.taker(of: $0)?.claim.orderID }))
        func taker(_ key: String) -> RefundJudge.Taker? {
            if let t = book.taker(of: key) {
                let slot = t.remembered ? rerunSlots[t.claim.orderID] : t.handle
                return .init(orderID: t.claim.orderID, userID: t.claim.userID, createdAt: t.claim.createdAt,
                             slot: slot, stillCredited: !refundedTonight.contains(t.claim.orderID))
            }
            return earlier[key].map {
                .init(orderID: $0.claim.orderID, userID: $0.claim.userID, createdAt: $0.claim.createdAt, slot: nil,
                      stillCredited: !refundedTonight.contains($0.claim.orderID))
            }
        }
        // `user.refunds` counts the ledger's refunds of its claims, and tonight's it does not hold yet.
        var ledgerCounted: Set<String> = []
        if evaluator.needsStoreEventFields, let ledger {
            out.refundsPerUser = try ledger.refundsPerUser()
            let known = try ledger.refunds(of: Array(Set(refunds.map(\.key))))
            ledgerCounted = Set(known.keys.filter { key in earlier[key] != nil || book.taker(of: key)?.remembered == true })
        }
        let judged = RefundJudge().judge(refunds, tonight: tonightCount, taker: taker,
                                         alreadyCounted: { ledgerCounted.contains($0) }) { order in
            (try? ledger?.wasReported(orderID: order, rule: RefundedAfterCredit.id.rawValue)) == true
        }
        out.matched += judged.matched
        out.unmatched += judged.unmatched
        out.refundsPerUser.merge(judged.refundsPerUser, uniquingKeysWith: +)
        out.reasons = judged.reasons
        var byRefund: [Int: RefundJudge.Judged] = [:]
        for j in judged.judged { byRefund[j.index] = j }

        func place(_ j: RefundJudge.Judged) {
            guard let f = evaluator.eventFinding(j.rule, orderID: j.taker.orderID, userID: j.taker.userID,
                                                 createdAt: j.taker.createdAt, (j.message, j.evidence)) else { return }
            if let slot = j.taker.slot {
                late[slot, default: []].append(f)
                out.bySlot[slot, default: []].append(f)
            } else {
                out.afterNight.append(Self.eventReport(f, createdAt: j.taker.createdAt, isOrder: true,
                                                       details: earlier[j.refund.key]?.details))
            }
        }
        for (k, item) in items.enumerated() {
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
                if let r = refundAt[k], let j = byRefund[r] { place(j) }
            }
        }
        for r in tonightCount..<refunds.count { if let j = byRefund[r] { place(j) } }
        return out
    }

    /// A believed refund or reversal as the ledger keeps it: by its claim key, or — when no
    /// purchase names its token yet — by `gt:` + the token, so a later credit still finds it.
    private func remember(_ r: StoreRefund, token: String?, identity: EventIdentity, in memory: inout EventMemory) {
        let key = r.key.isEmpty ? token.map { "gt:" + $0 } : r.key
        guard let key else { return }
        switch r.kind {
        case .refund:
            memory.refunds.append(RememberedRefund(key: key, refundedAt: r.at, event: r.event, reason: r.reason, source: r.source,
                                                   identity: identity.hex))
        case .reversal:
            memory.reversals.append((key, r.at))
        }
    }

    static func transactionText(_ key: String) -> String {
        key.firstIndex(of: ":").map { String(key[key.index(after: $0)...]) } ?? key
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

    /// A report of its own for a finding after tonight's orders; an order of an earlier night
    /// has what the ledger keeps of it.
    static func eventReport(_ f: Finding, createdAt: Timestamp?, isOrder: Bool, details: ClaimDetails? = nil) -> OrderReport {
        OrderReport(orderID: f.orderID, userID: f.userID, platform: details?.platform, productID: details?.productID,
                    amount: details?.amount, currency: details?.currency, createdAt: createdAt, findings: [f], isOrder: isOrder)
    }
}
