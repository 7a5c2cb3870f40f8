import IAPBasics
import Ledger
import Reporting
import Screening

/// What the night's store events (and the refunds the ledger remembers) did (docs/store-events.md):
/// findings on tonight's orders join their other findings; the rest — findings on orders of
/// earlier nights, events not believed, lines that are no event — are reports of their own
/// after tonight's orders, in the order the events were read.
struct EventOutcome: Sendable {
    var afterNight: [OrderReport] = []
    /// Each of `afterNight`'s place among all a whole run's would hold (a sharded run's
    /// worker holds its shard's of them), for `merge`.
    var afterNightOrder: [Int] = []
    /// Refunds judged on tonight's orders: their findings are made as the reports are.
    var pending = PendingRefunds()
    /// The findings the events gave the watched slot (`explain`).
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
    func judge(
        _ events: StoreEventNight?, remembered: [RememberedTaking], book: ClaimBook, night: NightLoader,
        watch: Int32?
    ) throws -> EventOutcome {
        var out = EventOutcome(counts: events?.counts ?? .init())
        // What the night's events leave in the ledger is handed over by one shard of a run.
        let isFirstShard = shard.map { $0.index == 1 } ?? true
        // Events not believed and lines that are no event, each with its place among the refunds.
        let others = events?.others ?? []
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
        // Token-only refunds resolved here (few), by refund index. Nothing else is copied: a
        // night of a million events keeps its refunds once, packed (`NightRefunds`).
        let packed = events?.refunds ?? NightRefunds()
        var resolved: [Int32: String] = [:]
        // The judge's index of each of tonight's refunds -> its index in `packed`.
        var keyed: [Int32] = []
        for i in 0..<packed.count {
            let (r, token, identity) = packed[i]
            var key = r.key
            if key.isEmpty, let token, let found = tokenKeys[token] {
                key = found
                resolved[Int32(i)] = found
            }
            if ledger != nil, isFirstShard { remember(r, key: key, token: token, identity: identity, in: &out.memory) }
            if key.isEmpty {
                out.unmatched += 1  // a token no purchase of tonight's or the ledger's names
            } else {
                keyed.append(Int32(i))
            }
        }
        if ledger != nil, isFirstShard { out.memory.events = events?.believed.map { ($0.identity.hex, $0.type) } ?? [] }
        /// Tonight's refunds and reversals with a key, in the order read.
        let tonight = keyed.lazy.map { i in
            var r = packed[Int(i)].refund
            if let key = resolved[i] { r.key = key }
            return r
        }
        let rememberedRefunds = remembered.map { m in
            var r = StoreRefund(
                kind: .refund, key: m.key, event: m.refund.event, at: m.refund.refundedAt, location: nil)
            r.reason = m.refund.reason
            r.source = m.refund.source
            return r
        }

        // Transactions whose first taker is an earlier night's: the ledger's claim, with what it bought.
        var earlier: [String: (claim: Claim, details: ClaimDetails)] = [:]
        var rerunSlots: [String: Int32] = [:]
        var ledgerCounted: Set<String> = []
        if let ledger {
            var named: Set<String> = []
            for r in tonight where book.taker(of: r.key).map({ $0.remembered }) ?? true { named.insert(r.key) }
            for r in rememberedRefunds where book.taker(of: r.key).map({ $0.remembered }) ?? true {
                named.insert(r.key)
            }
            for case (_, .invalid(_, let transaction?, _, _)) in others
            where book.taker(of: transaction).map({ $0.remembered }) ?? true {
                named.insert(transaction)
            }
            earlier = try ledger.claimsWithDetails(of: Array(named))
            // An earlier night's claim whose order is in tonight's dump again (a rerun) is that order's.
            rerunSlots = night.slots(ofOrders: Set(named.compactMap { book.taker(of: $0)?.claim.orderID }))
            // `user.refunds` counts the ledger's refunds of its claims, and tonight's it does not hold yet.
            if evaluator.needsStoreEventFields {
                out.refundsPerUser = try ledger.refundsPerUser()
                let keys = Set(tonight.map(\.key)).union(rememberedRefunds.map(\.key))
                let known = try ledger.refunds(of: Array(keys))
                ledgerCounted = Set(
                    known.keys.filter { key in earlier[key] != nil || book.taker(of: key)?.remembered == true })
            }
        }
        func taker(_ key: String) -> RefundJudge.Taker? {
            if let t = book.taker(of: key) {
                let slot = t.remembered ? rerunSlots[t.claim.orderID] : t.handle
                return .init(
                    orderID: t.claim.orderID, userID: t.claim.userID, createdAt: t.claim.createdAt,
                    slot: slot, stillCredited: !refundedTonight.contains(t.claim.orderID))
            }
            return earlier[key].map {
                .init(
                    orderID: $0.claim.orderID, userID: $0.claim.userID, createdAt: $0.claim.createdAt, slot: nil,
                    stillCredited: !refundedTonight.contains($0.claim.orderID))
            }
        }
        let judged = RefundJudge(countsPerUser: evaluator.needsStoreEventFields).judge(
            tonight, remembered: rememberedRefunds, taker: taker,
            alreadyCounted: { ledgerCounted.contains($0) },
            reportedRefund: { order in
                (try? ledger?.wasReported(orderID: order, rule: RefundedAfterCredit.id.rawValue)) == true
            })
        out.matched += judged.matched
        out.unmatched += judged.unmatched
        out.refundsPerUser.merge(judged.refundsPerUser, uniquingKeysWith: +)
        out.reasons = judged.reasons
        var byRefund: [Int: RefundJudge.Judged] = [:]
        for j in judged.judged { byRefund[j.index] = j }

        out.pending = PendingRefunds(packed: packed, keyed: keyed, resolved: resolved, remembered: rememberedRefunds)
        // A sharded run's worker reports on its shard's orders only; what names no order is
        // the first shard's. Every worker judges every event: the counts are the whole log's.
        func isMine(_ orderID: String?) -> Bool {
            guard let shard else { return true }
            return orderID.map(shard.owns) ?? (shard.index == 1)
        }
        var afterNightSeen = 0
        func placeAfterNight(_ report: OrderReport, mine: Bool) {
            if mine {
                out.afterNight.append(report)
                out.afterNightOrder.append(afterNightSeen)
            }
            afterNightSeen += 1
        }
        func place(_ j: RefundJudge.Judged) {
            if j.taker.slot == nil, shard != nil,
                let t = book.taker(of: j.refund.key), !t.remembered, t.handle == nil
            {
                // Tonight's order of another shard (the book holds its claim without a handle): its worker reports it.
                return
            }
            if let slot = j.taker.slot {
                guard evaluator.isEnabled(j.rule) else { return }
                out.pending.add(j, slot: slot)
                if slot == watch, let f = finding(j) { out.bySlot[slot, default: []].append(f) }
                return
            }
            if let f = finding(j) {
                placeAfterNight(
                    Self.eventReport(
                        f, createdAt: j.taker.createdAt, isOrder: true,
                        details: earlier[j.refund.key]?.details), mine: isMine(j.taker.orderID))
            }
        }
        // In the order read: each of `others` before the refunds read after it (refunds are not
        // unpacked for this: the judge's index k is refund keyed[k]), the remembered ones last.
        var nextOther = 0
        func placeOthers(upTo refundIndex: Int) {
            while nextOther < others.count, others[nextOther].before <= refundIndex {
                switch others[nextOther].other {
                case .malformed(let m):
                    if let f = evaluator.nightFinding(
                        MalformedRecord.self, orderID: nil,
                        MalformedRecord.words(location: m.location, reason: m.reason))
                    {
                        placeAfterNight(Self.eventReport(f, createdAt: nil, isOrder: false), mine: isMine(nil))
                    }
                case .invalid(let type, let transaction, let location, let reason):
                    let order = transaction.flatMap { taker($0) }
                    let words = StoreEventInvalid.words(
                        type: type, transaction: transaction, location: location, reason: reason)
                    if let f = evaluator.nightFinding(StoreEventInvalid.self, orderID: order?.orderID, words) {
                        var finding = f
                        finding.userID = order?.userID
                        placeAfterNight(
                            Self.eventReport(finding, createdAt: order?.createdAt, isOrder: false),
                            mine: isMine(order?.orderID))
                    }
                }
                nextOther += 1
            }
        }
        for (k, refundIndex) in keyed.enumerated() {
            placeOthers(upTo: Int(refundIndex))
            if let j = byRefund[k] { place(j) }
        }
        placeOthers(upTo: Int.max)
        for k in keyed.count..<(keyed.count + rememberedRefunds.count) {
            if let j = byRefund[k] { place(j) }
        }
        out.pending.settle()
        return out
    }

    /// The finding of a judged refund (nil when its rule is off).
    func finding(_ j: RefundJudge.Judged) -> Finding? {
        evaluator.eventFinding(
            j.rule, orderID: j.taker.orderID, userID: j.taker.userID, createdAt: j.taker.createdAt, j.words)
    }

    /// A believed refund or reversal as the ledger keeps it: by its claim key, or — when no
    /// purchase names its token yet — by `gt:` + the token, so a later credit still finds it.
    private func remember(
        _ r: StoreRefund, key: String, token: String?, identity: EventIdentity, in memory: inout EventMemory
    ) {
        guard let key = key.isEmpty ? token.map({ "gt:" + $0 }) : key else { return }
        switch r.kind {
        case .refund:
            memory.refunds.append(
                RememberedRefund(
                    key: key, refundedAt: r.at, event: r.event, reason: r.reason, source: r.source,
                    identity: identity.hex))
        case .reversal:
            memory.reversals.append((key, r.at))
        }
    }

    /// The claim keys of tonight's purchases that hold one of `tokens`: a receipt kept whole
    /// for the claims says its tokens; any other Google purchase left its token's hash.
    private func tokenKeys(_ tokens: Set<String>, _ night: NightLoader) -> [String: String] {
        guard !tokens.isEmpty else { return [:] }
        var byHash: [UInt64: String] = [:]
        for t in tokens { byHash[TokenHash.of(t)] = t }
        // A subscription's renewals share its token: the earliest credited order's purchase is
        // the one (of two at one time, the one read first).
        var out: [String: (key: String, at: Int64, position: Int64)] = [:]
        func found(_ token: String, _ key: String, at: Int64, position: Int64) {
            if let seen = out[token], (seen.at, seen.position) <= (at, position) { return }
            out[token] = (key, at, position)
        }
        func found(_ token: String, _ key: String, slot i: Int) {
            let (at, position) = night.slots.with(i) {
                (Int64($0.pointee.order.createdAt.millis), Int64($0.pointee.position))
            }
            found(token, key, at: at, position: position)
        }
        // A sharded run's other shards' purchases too.
        for token in tokens {
            for t in others.tokens[token] ?? [] { found(token, t.key, at: t.at, position: t.position) }
        }
        for i in night.slots.indices {
            if let digest = night.deferred(at: i)?.digest {
                for p in digest.candidates {
                    if let token = p.purchaseToken, tokens.contains(token),
                        let key = claimKey(p, platform: digest.platform)
                    {
                        found(token, key, slot: i)
                    }
                }
            } else if case let h = night.tokenHash(at: i), h != 0, let token = byHash[h],
                night.purchaseToken(at: i).map({ $0 == token }) ?? true,
                let key = night.slots.with(i, { $0.pointee.candidate?.key })
            {
                found(token, key, slot: i)
            }
        }
        return out.mapValues(\.key)
    }

    /// A report of its own for a finding after tonight's orders; an order of an earlier night
    /// has what the ledger keeps of it.
    static func eventReport(_ f: Finding, createdAt: Timestamp?, isOrder: Bool, details: ClaimDetails? = nil)
        -> OrderReport
    {
        OrderReport(
            orderID: f.orderID, userID: f.userID, platform: details?.platform, productID: details?.productID,
            amount: details?.amount, currency: details?.currency, createdAt: createdAt, findings: [f], isOrder: isOrder)
    }
}
