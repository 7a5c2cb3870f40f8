import IAPBasics
import Ledger
import Reporting
import Screening

/// What the night's store events (and the refunds the ledger remembers) did (docs/store-events.md):
/// findings on tonight's orders join their other findings; the rest — findings on orders of
/// earlier nights, events not believed, lines that are no event — are reports of their own
/// after tonight's orders, in the order the events were read.
package struct EventOutcome: Sendable {
    var afterNight: [OrderReport] = []
    /// Each of `afterNight`'s place among all a whole run's would hold (a sharded run's
    /// worker holds its shard's of them), for `merge`.
    var afterNightOrder: [Int] = []
    /// Refunds judged on tonight's orders: their findings are made as the reports are.
    var pending = PendingRefunds()
    /// The findings the events gave the watched slot (`explain`).
    package var bySlot: [Int32: [Finding]] = [:]
    package var counts = StoreEventNight.Counts()
    package var matched = 0
    package var unmatched = 0
    /// For the custom-rule fields `user.refunds` and `event.reason`.
    var refundsPerUser: [String: Int] = [:]
    var reasons: [String: String] = [:]
    /// What the ledger is to remember of tonight's events.
    package var memory = EventMemory()
}

/// Tonight's events as the ledger keeps them (`RunRecord`).
package struct EventMemory: Sendable {
    package var refunds: [RememberedRefund] = []
    package var reversals: [(key: String, at: Timestamp)] = []
    package var events: [(identity: String, type: String)] = []

    package init() {}
}

/// A refund the ledger remembers of a transaction one of tonight's orders took (or took on
/// its own earlier run): judged with tonight's events, after them.
struct RememberedTaking {
    /// The key the order took (a Google claim's `g:` key even when the refund was kept under
    /// its token, `gt:`).
    var key: String
    var refund: RememberedRefund
}

/// One of tonight's orders that replays a transaction (`key`; a Google purchase's `token`
/// beside it), and the refund of it the ledger remembers, if any.
struct ReplayTaking {
    var slot: Int32
    var key: String
    var token: String?
    var remembered: RememberedRefund?
}

extension NightScreener {
    /// The refunds the ledger remembers of what tonight's replays replay (by key, or by the
    /// token a Google refund was kept under): one lookup for all.
    func rememberReplayedRefunds(_ replays: inout [ReplayTaking], ledger: any LedgerStore) throws {
        var lookups: Set<String> = []
        for r in replays {
            lookups.insert(r.key)
            if let byToken = ClaimKey.tokenKey(besides: r.key, token: r.token) { lookups.insert(byToken) }
        }
        let found = try ledger.refunds(of: Array(lookups))
        for k in replays.indices {
            let r = replays[k]
            // A refund Apple reversed no longer stands.
            let refund = found[r.key] ?? ClaimKey.tokenKey(besides: r.key, token: r.token).flatMap { found[$0] }
            if let refund, refund.reversedAt == nil { replays[k].remembered = refund }
        }
    }

    /// Judges tonight's events (nil without `--store-events`) and the refunds the ledger
    /// remembers of transactions tonight's orders took, then places what they found: on
    /// tonight's orders (pending until their reports), or in reports after tonight's.
    func judge(
        _ events: StoreEventNight?, remembered: [RememberedTaking], replays: [ReplayTaking], book: ClaimBook,
        night: NightLoader, watch: Int32?
    ) throws -> EventOutcome {
        var out = EventOutcome(counts: events?.counts ?? .init())
        let givenBack = givenBackTonight(night)
        let refunds = try keyedRefunds(events, night, memory: &out)
        let tonight = refunds.tonight
        let rememberedRefunds = remembered.map { Self.refund($0.refund, key: $0.key) }
        let takers = try takersOfEarlierNights(
            tonight, rememberedRefunds, others: events?.others ?? [], book: book, night: night, out: &out)
        func taker(_ key: String) -> RefundJudge.Taker? {
            takers.taker(of: key, book: book, refundedTonight: givenBack.orders)
        }
        let judged = RefundJudge(countsPerUser: countsRefundsPerUser).judge(
            tonight, remembered: rememberedRefunds, taker: taker, givenBack: { givenBack.keys.contains($0) },
            alreadyCounted: { takers.ledgerCounted.contains($0) },
            reportedRefund: { order in
                (try? ledger?.wasReported(orderID: order, rule: RefundedAfterCredit.id.rawValue)) == true
            })
        out.matched += judged.matched
        out.unmatched += judged.unmatched
        out.refundsPerUser.merge(judged.refundsPerUser, uniquingKeysWith: +)
        out.reasons = judged.reasons

        let replayed = replayedRefunds(
            replays, tonight: tonight, remembered: rememberedRefunds, keyedCount: refunds.keyed.count)
        out.pending = PendingRefunds(
            packed: refunds.packed, keyed: refunds.keyed, resolved: refunds.resolved,
            remembered: rememberedRefunds + replayed.extra)
        var placer = AfterNightPlacer(
            screener: self, night: night, book: book, earlier: takers.earlier, watch: watch,
            others: events?.others ?? [])
        placer.place(
            judged.judged, keyed: refunds.keyed, rememberedCount: rememberedRefunds.count, taker: taker, into: &out)
        placeRevokedReplays(replays, first: replayed.first, night: night, watch: watch, into: &out)
        out.pending.settle()
        return out
    }

    /// Whether each user's refunds are counted (the ledger's and tonight's, each once): a
    /// custom rule reads `user.refunds` or `event.reason`, or a refund request's answer weighs
    /// them (`consumption decline_after_refunds`), whatever the Rules ask.
    var countsRefundsPerUser: Bool {
        evaluator.needsStoreEventFields || !(events?.requests.isEmpty ?? true)
    }

    /// Tonight's orders the dump marks refunded (given back already: no refund finding), and
    /// the keys of their purchases — the transaction the row names, and the purchase the
    /// receipt names (`NightLoader.uncreditedPurchase`); this shard's and, in a sharded run,
    /// the others' — so that a refund of one is matched though such an order took nothing.
    private func givenBackTonight(_ night: NightLoader) -> (orders: Set<String>, keys: Set<String>) {
        var orders: Set<String> = []
        var keys = self.others.givenBack
        for i in night.slots.indices where night.slots.with(i, { $0.pointee.order.status == .refunded }) {
            let order = night.slots[i].order
            orders.insert(order.orderID)
            keys.formUnion(ClaimKey.recorded(order.transactionID))
            if let p = night.uncreditedPurchase(at: i) { keys.insert(p.key) }
        }
        return (orders, keys)
    }

    /// Tonight's refunds and reversals, packed as read (`NightRefunds`): those with a claim
    /// key (token-only ones resolved through tonight's purchases, else the ledger's claims)
    /// by their index in `packed`. Nothing else is copied: a night of a million events keeps
    /// its refunds once.
    struct KeyedRefunds {
        var packed = NightRefunds()
        /// The judge's index of each of tonight's refunds -> its index in `packed`.
        var keyed: [Int32] = []
        /// Token-only refunds resolved here (few), by their index in `packed`.
        var resolved: [Int32: String] = [:]

        /// Tonight's refunds and reversals with a key, in the order read.
        var tonight: LazyMapSequence<[Int32], StoreRefund> {
            keyed.lazy.map { [packed, resolved] i in
                var r = packed[Int(i)].refund
                if let key = resolved[i] { r.key = key }
                return r
            }
        }
    }

    /// Keys tonight's refunds; what the ledger is to remember of them (and of the events) goes
    /// into `memory` — by one worker of a sharded run; a token no purchase names is unmatched.
    private func keyedRefunds(_ events: StoreEventNight?, _ night: NightLoader, memory out: inout EventOutcome) throws
        -> KeyedRefunds
    {
        // What the night's events leave in the ledger is handed over by one shard of a run.
        let remembers = ledger != nil && owned.ownsTheUnattributed
        // A token-only refund finds its purchase tonight, else among the ledger's claims.
        var tokenKeys = tokenKeys(events?.unresolvedTokens ?? [], night)
        if let ledger, let tokens = events?.unresolvedTokens.subtracting(tokenKeys.keys), !tokens.isEmpty {
            tokenKeys.merge(try ledger.claimKeys(forTokens: Array(tokens))) { tonight, _ in tonight }
        }
        // Else an order tonight's dump marks refunded whose receipt holds it.
        if let tokens = events?.unresolvedTokens.subtracting(tokenKeys.keys), !tokens.isEmpty {
            tokenKeys.merge(givenBackTokenKeys(tokens, night)) { found, _ in found }
        }
        var refunds = KeyedRefunds(packed: events?.refunds ?? NightRefunds())
        for i in 0..<refunds.packed.count {
            let (r, token, identity) = refunds.packed[i]
            var key = r.key
            if key.isEmpty, let token, let found = tokenKeys[token] {
                key = found
                refunds.resolved[Int32(i)] = found
            }
            if remembers { remember(r, key: key, token: token, identity: identity, in: &out.memory) }
            if key.isEmpty {
                out.unmatched += 1  // a token no purchase of tonight's or the ledger's names
            } else {
                refunds.keyed.append(Int32(i))
            }
        }
        if remembers { out.memory.events = events?.believed.map { ($0.identity.hex, $0.type) } ?? [] }
        return refunds
    }

    /// A refund the ledger remembers, as the judge reads refunds, under `key`.
    private static func refund(_ m: RememberedRefund, key: String) -> StoreRefund {
        var r = StoreRefund(kind: .refund, key: key, event: m.event, at: m.refundedAt, location: nil)
        r.reason = m.reason
        r.source = m.source
        return r
    }

    /// What the ledger says of the transactions the night's refunds name whose first taker
    /// is an earlier night's order.
    struct EarlierTakers {
        /// The ledger's claim of each, with what it bought.
        var earlier: [String: (claim: Claim, details: ClaimDetails)] = [:]
        /// An earlier night's claim whose order is in tonight's dump again (a rerun) is that order's.
        var rerunSlots: [String: Int32] = [:]
        /// Keys whose refund `user.refunds` counts from the ledger already.
        var ledgerCounted: Set<String> = []

        /// The first taker of `key`: tonight's claim (or the ledger's remembered one) in the
        /// book, else the ledger's claim of an earlier night.
        func taker(of key: String, book: ClaimBook, refundedTonight: Set<String>) -> RefundJudge.Taker? {
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
    }

    private func takersOfEarlierNights(
        _ tonight: some Sequence<StoreRefund>, _ rememberedRefunds: [StoreRefund],
        others: [(before: Int, other: StoreEventNight.Other)], book: ClaimBook, night: NightLoader,
        out: inout EventOutcome
    ) throws -> EarlierTakers {
        var found = EarlierTakers()
        guard let ledger else { return found }
        var named: Set<String> = []
        for r in tonight where book.taker(of: r.key).map({ $0.remembered }) ?? true { named.insert(r.key) }
        for r in rememberedRefunds where book.taker(of: r.key).map({ $0.remembered }) ?? true {
            named.insert(r.key)
        }
        for case (_, .invalid(_, let transaction?, _, _)) in others
        where book.taker(of: transaction).map({ $0.remembered }) ?? true {
            named.insert(transaction)
        }
        found.earlier = try ledger.claimsWithDetails(of: Array(named))
        found.rerunSlots = night.slots(ofOrders: Set(named.compactMap { book.taker(of: $0)?.claim.orderID }))
        // `user.refunds` counts the ledger's refunds of its claims, and tonight's it does not hold yet.
        if countsRefundsPerUser {
            out.refundsPerUser = try ledger.refundsPerUser()
            let keys = Set(tonight.map(\.key)).union(rememberedRefunds.map(\.key))
            let known = try ledger.refunds(of: Array(keys))
            let earlier = found.earlier
            found.ledgerCounted = Set(
                known.keys.filter { key in earlier[key] != nil || book.taker(of: key)?.remembered == true })
        }
        return found
    }

    /// The first refund read of each key tonight's replays replay (tonight's, else one the
    /// ledger keeps with its claim, else one it keeps for the replay alone: `extra`, indexed
    /// after the remembered ones).
    private func replayedRefunds(
        _ replays: [ReplayTaking], tonight: some Sequence<StoreRefund>, remembered: [StoreRefund], keyedCount: Int
    ) -> (extra: [StoreRefund], first: [String: (index: Int, refund: StoreRefund)]) {
        guard !replays.isEmpty else { return ([], [:]) }
        var extra: [StoreRefund] = []
        var first: [String: (index: Int, refund: StoreRefund)] = [:]
        let replayed = Set(replays.map(\.key))
        for (k, r) in tonight.enumerated() where r.kind == .refund && replayed.contains(r.key) {
            if first[r.key] == nil { first[r.key] = (k, r) }
        }
        for (m, r) in remembered.enumerated() where first[r.key] == nil && replayed.contains(r.key) {
            first[r.key] = (keyedCount + m, r)
        }
        for replay in replays {
            guard first[replay.key] == nil, let m = replay.remembered else { continue }
            let r = Self.refund(m, key: replay.key)
            first[replay.key] = (keyedCount + remembered.count + extra.count, r)
            extra.append(r)
        }
        return (extra, first)
    }

    /// `revoked` on tonight's replays credited on or after their purchase's refund.
    private func placeRevokedReplays(
        _ replays: [ReplayTaking], first: [String: (index: Int, refund: StoreRefund)], night: NightLoader,
        watch: Int32?, into out: inout EventOutcome
    ) {
        guard !first.isEmpty, evaluator.isEnabled(Revoked.self) else { return }
        let takers = replays.map { r in
            let o = night.slots[Int(r.slot)].order
            return (
                key: r.key,
                taker: RefundJudge.Taker(
                    orderID: o.orderID, userID: o.userID, createdAt: o.createdAt, slot: r.slot, stillCredited: true)
            )
        }
        for j in RefundJudge().revokedReplays(takers, firstRefund: { first[$0] }) {
            guard let slot = j.taker.slot else { continue }
            out.pending.add(j, slot: slot)
            if slot == watch, let f = finding(j) { out.bySlot[slot, default: []].append(f) }
        }
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
        guard let key = key.isEmpty ? ClaimKey.google(token: token) : key else { return }
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
        var out = EarliestHolders(night)
        // A sharded run's other shards' purchases too.
        for token in tokens {
            for t in others.tokens[token] ?? [] { out.found(token, t.key, at: t.at, position: t.position) }
        }
        for i in night.slots.indices {
            if let digest = night.deferred(at: i)?.digest {
                for p in digest.candidates {
                    if let token = p.purchaseToken, tokens.contains(token),
                        let key = claimKey(p, platform: digest.platform)
                    {
                        out.found(token, key, slot: i)
                    }
                }
            } else if case let h = night.tokenHash(at: i), h != 0, let token = byHash[h],
                night.purchaseToken(at: i).map({ $0 == token }) ?? true,
                let key = night.slots.with(i, { $0.pointee.candidate?.key })
            {
                out.found(token, key, slot: i)
            }
        }
        return out.keys
    }

    /// The claim keys of the purchases holding one of `tokens` that the receipts of orders
    /// tonight's dump marks refunded name (this shard's and the others').
    private func givenBackTokenKeys(_ tokens: Set<String>, _ night: NightLoader) -> [String: String] {
        var out = EarliestHolders(night)
        for token in tokens {
            for t in others.givenBackTokens[token] ?? [] { out.found(token, t.key, at: t.at, position: t.position) }
        }
        for (slot, p) in night.uncredited {
            guard let token = p.token, tokens.contains(token),
                night.slots.with(Int(slot), { $0.pointee.order.status == .refunded })
            else { continue }
            out.found(token, p.key, slot: Int(slot))
        }
        return out.keys
    }

    /// The purchase of each token held by the earliest order: a subscription's renewals share
    /// its token, and the earliest order's purchase is the one (of two at one time, the one
    /// read first).
    private struct EarliestHolders {
        let night: NightLoader
        private var held: [String: (key: String, at: Int64, position: Int64)] = [:]

        init(_ night: NightLoader) { self.night = night }

        var keys: [String: String] { held.mapValues(\.key) }

        mutating func found(_ token: String, _ key: String, at: Int64, position: Int64) {
            if let seen = held[token], (seen.at, seen.position) <= (at, position) { return }
            held[token] = (key, at, position)
        }

        mutating func found(_ token: String, _ key: String, slot i: Int) {
            let (at, position) = night.slots.with(i) {
                (Int64($0.pointee.order.createdAt.millis), night.sharedPosition(Int($0.pointee.position)))
            }
            found(token, key, at: at, position: position)
        }
    }

    /// What the reports show of tonight's order in `slot` beside a report of its own: as its
    /// own report does, the platform of its row (else of its receipt), the product it should
    /// have bought, its amount and currency.
    func details(ofSlot slot: Int32, _ night: NightLoader) -> ClaimDetails {
        let s = night.slots[Int(slot)]
        let o = screenOrder(s, night)
        return ClaimDetails(
            productID: o.expectedProductID, amount: o.amount, currency: o.currency,
            platform: (o.platform ?? s.outcome?.receiptPlatform)?.rawValue)
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
