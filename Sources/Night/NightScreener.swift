import Consumption
import Dispatch
import IAPBasics
import JSONText
import Ledger
import ReceiptFormats
import Reporting
import Screening

/// After loading: every credited order claims its purchase in (created_at, order_id)
/// order on top of the ledger's memory, replays are added to the findings the workers
/// found, orders with several candidate purchases are judged now, and each finding learns
/// what the ledger knows of it. The result is in input order.
package struct NightScreener {
    let rules: RulesDirectory
    let ledger: (any LedgerStore)?
    let resolver: OrderResolver
    let evaluator: RuleEvaluator
    /// The night's store events, read and verified (`--store-events`); nil without.
    var events: StoreEventNight?
    /// Whose reports this run writes (a sharded run's worker: its shard's), and the other
    /// shards' orders, claimed beside its own (none unsharded).
    var owned = OwnedOrders.all
    var others = ShardOrders()
    /// A part of a night read in parts (`NightPasses`), not a sharded run's worker: its
    /// refund requests' facts are gathered from its orders, to be joined with the others'.
    var isPartOfNight = false
    /// The explain index is written: the claims keep every selection screening did not assume.
    var keepsSelections = false
    /// Told the claims (`keepsSelections`) and the refund requests' facts as soon as they are
    /// made, before the reports: the explain index is written from them beside the reports.
    var afterClaims: ((ExplainedClaims, [(request: ConsumptionRequest, facts: ConsumptionFacts)]?) -> Void)?

    package struct Outcome {
        /// Smallest key first, as the ledger records them.
        package var newClaims: RunRows<NewClaim>
        /// Distinct credited orders, and those with a receipt.
        package var orders: Int
        package var receipts: Int
        /// The platforms of the receipts decoded (whose trust the summary says).
        package var receiptPlatforms: Set<Platform> = []
        /// Seconds spent making the claims, before the reports (IAPSCREEN_TIMINGS).
        package var claimSeconds: Double
        package var events: EventOutcome?
        /// The night's refund requests with what is known of each, gathered from these claims;
        /// nil for a sharded run's worker, which knows only its shard's orders (and none read).
        package var refundRequests: [(request: ConsumptionRequest, facts: ConsumptionFacts)]? = nil
        /// A part of a night's facts of the night's refund requests (`RequestFacts.joined`).
        var requestsInPart: (facts: [RequestFacts.Found], refunds: [String: Int])? = nil
        /// The pass file `newClaims` reads (a night in parts merges the parts' files).
        var claimsFile: PassFile? = nil
    }

    /// The night's claims: which purchase each order took, the replays they make, and the
    /// orders that cannot be screened.
    package struct Claims {
        var book: ClaimBook
        /// Findings decided only now (replays, orders with several candidate purchases), by slot.
        var late: [Int32: [Finding]]
        var orders: Int
        var receipts: Int
        var receiptPlatforms: Set<Platform> = []
        /// The purchase the watched slot got (`explain`).
        package var watched: Selection?
        /// The evaluator as the claims used it (with orders per user, when a rule asks).
        package var evaluator: RuleEvaluator
        /// What the store events did, when there were any.
        package var events: EventOutcome?
        /// Every selection other than screening's assumption, by slot (`keepsSelections`).
        var selections: [Int32: Selection] = [:]
    }

    /// Hands each order's report to `sink` in input order (orders, malformed records and
    /// orphan receipts interleaved by where they stood).
    func screen(_ night: NightLoader, writer: any ReportSink) throws -> Outcome {
        let started = SystemClock.monotonicSeconds()
        let claims = try makeClaims(night)
        let claimSeconds = SystemClock.monotonicSeconds() - started
        // Asked of these claims, not of a second pass over the night.
        var requests: [(request: ConsumptionRequest, facts: ConsumptionFacts)]?
        var inPart: (facts: [RequestFacts.Found], refunds: [String: Int])?
        if let asked = events?.requests, !asked.isEmpty {
            if owned.shard == nil {
                requests = Array(
                    zip(
                        asked,
                        try RequestFacts.gather(asked, night: night, claims: claims, rules: rules, ledger: ledger)
                    ))
            } else if isPartOfNight {
                inPart = try RequestFacts.gatherInPart(
                    asked, night: night, claims: claims, rules: rules, ledger: ledger)
            }
        }
        if keepsSelections, let afterClaims {
            afterClaims(
                ExplainedClaims(
                    selections: claims.selections, evaluator: claims.evaluator, pending: claims.events?.pending,
                    screener: self), requests)
        }
        var outcome = try report(night, claims: claims, claimSeconds: claimSeconds, writer: writer)
        outcome.refundRequests = requests
        outcome.requestsInPart = inPart
        return outcome
    }

    /// Claims in (created_at, order_id) order on top of the ledger's; `watch` names a slot
    /// whose selection to keep.
    func makeClaims(_ night: NightLoader, watch: Int32? = nil) throws -> Claims {
        // The slots are dropped once in claim order: the two lists never take memory at once.
        var scan = screenable(night)
        // `user.orders` needs the whole night: then every decoded order was deferred to here.
        var evaluator = self.evaluator
        if evaluator.needsOrdersPerUser {
            for i in scan.slots { evaluator.ordersPerUser[night.slots[Int(i)].order.userID, default: 0] += 1 }
            for (user, count) in others.ordersOfUsers { evaluator.ordersPerUser[user, default: 0] += count }
        }
        // Refunds the ledger remembers are looked up for the keys tonight's orders take.
        let refundCount = try ledger?.refundCount() ?? 0
        let judgesRefunds = events != nil || refundCount > 0
        var pass = ClaimPass(
            book: try bookOnTheLedger(scan.slots, night), watch: watch, checksRefunds: refundCount > 0,
            judgesRefunds: judgesRefunds,
            // Custom rules that ask what the store events said wait for them to be judged.
            waitsForEvents: judgesRefunds && evaluator.needsStoreEventFields)
        pass.keepsSelections = keepsSelections
        let order = claimOrder(scan.slots, night)
        scan.slots = []
        // Sized once, after the sort's keys are gone: the two never take memory at once.
        pass.book.reserve(order.count)
        // What each claim reads of its slot is gathered on another core, a few thousand claims
        // ahead: the slots are read in time order, scattered over the night, and those reads
        // (cache misses) were a third of the claims, which otherwise run on one core alone.
        let reads = ClaimReads(order, night)
        while let chunk = reads.next() {
            for (i, read) in chunk { claim(i, read, night, evaluator, &pass) }
        }
        if let ledger, pass.checksRefunds, !pass.replays.isEmpty {
            try rememberReplayedRefunds(&pass.replays, ledger: ledger)
        }
        let remembered = try rememberedRefunds(pass.took, refundCount: refundCount)
        let judged =
            judgesRefunds
            ? try judge(
                events, remembered: remembered, replays: pass.replays, book: pass.book, night: night, watch: watch)
            : nil
        if let judged {
            // The rules see them only when one asks; a refund request's answer reads them
            // from the events' outcome (counted for it whatever the rules ask).
            let asked = evaluator.needsStoreEventFields
            evaluator.refundsPerUser = asked ? judged.refundsPerUser : [:]
            evaluator.refundReasons = asked ? judged.reasons : [:]
        }
        for (i, selection) in pass.waiting {
            guard let box = night.deferred(at: Int(i)) else { continue }
            let found = evaluator.findings(
                order: screenOrder(night.slots[Int(i)], night), receipt: .decoded(box.digest), selection: selection)
            pass.late[i] = found + (pass.late[i] ?? [])
        }
        return Claims(
            book: pass.book, late: pass.late, orders: scan.orders, receipts: scan.receipts,
            receiptPlatforms: scan.platforms,
            watched: pass.watched, evaluator: evaluator, events: judged, selections: pass.selections)
    }

    /// What the claims gather as they are made, in claim order.
    struct ClaimPass {
        var book: ClaimBook
        let watch: Int32?
        /// Whether the ledger remembers refunds: then the keys taken tonight are noted.
        let checksRefunds: Bool
        let waitsForEvents: Bool
        /// Whether tonight's refunds are judged: store events were read or the ledger remembers some.
        let judgesRefunds: Bool
        /// Findings decided only now (replays, orders with several candidate purchases), by slot.
        var late: [Int32: [Finding]] = [:]
        var watched: Selection?
        /// Orders whose findings wait for the store events (`waitsForEvents`).
        var waiting: [(slot: Int32, selection: Selection)] = []
        /// The keys (and tokens' keys) tonight's orders took, for the refunds the ledger remembers.
        var took: [(lookup: String, key: String)] = []
        /// Tonight's replays, for a refund of what they replay (`revoked` beside the replay).
        var replays: [ReplayTaking] = []
        var keepsSelections = false
        /// The selections screening did not assume (`keepsSelections`), by slot.
        var selections: [Int32: Selection] = [:]

        init(book: ClaimBook, watch: Int32?, checksRefunds: Bool, judgesRefunds: Bool, waitsForEvents: Bool) {
            self.book = book
            self.watch = watch
            self.checksRefunds = checksRefunds
            self.judgesRefunds = judgesRefunds
            self.waitsForEvents = waitsForEvents
        }

        /// A replay, kept only when refunds are judged tonight (events, or the ledger's memory).
        mutating func noteReplay(slot: Int32, key: String, token: @autoclosure () -> String?) {
            guard judgesRefunds else { return }
            replays.append(ReplayTaking(slot: slot, key: key, token: token()))
        }

        /// Slot `slot` got `selection` where screening assumed `assumed` (its first candidate, or none).
        mutating func noteSelection(_ selection: Selection, of slot: Int32, assumed: Selection) {
            if keepsSelections, selection != assumed { selections[slot] = selection }
        }

        mutating func noteTaking(_ selection: Selection, key: String?, token: @autoclosure () -> String?) {
            guard checksRefunds, case .picked = selection, let key else { return }
            took.append((key, key))
            if let byToken = ClaimKey.tokenKey(besides: key, token: token()) { took.append((byToken, key)) }
        }
    }

    /// The credited orders that were screened (slot indices), how many, and how many had a receipt.
    private func screenable(_ night: NightLoader) -> (
        slots: [Int32], orders: Int, receipts: Int, platforms: Set<Platform>
    ) {
        let slots = night.slots
        var screenable: [Int32] = []
        var receipts = 0
        var orders = 0
        // Two flags, not a set a slot: a million orders ask.
        var (ios, android) = (false, false)
        for i in slots.indices {
            guard
                let (kind, platform) = slots.with(
                    i,
                    { s -> (ReceiptScreening.Outcome.Kind, Platform?)? in
                        guard s.pointee.order.status == .credited, let kind = s.pointee.outcomeKind else { return nil }
                        return (kind, s.pointee.receiptPlatform)
                    })
            else {
                continue
            }
            orders += 1
            if kind != .missing { receipts += 1 }
            switch platform {
            case .ios?: ios = true
            case .android?: android = true
            case nil: break
            }
            screenable.append(Int32(i))
        }
        let platforms = Set([ios ? Platform.ios : nil, android ? Platform.android : nil].compactMap { $0 })
        return (screenable, orders, receipts, platforms)
    }

    /// The claim book on top of the ledger's earlier claims of every key tonight's orders
    /// (and a sharded run's other shards' orders) may take.
    private func bookOnTheLedger(_ screenable: [Int32], _ night: NightLoader) throws -> ClaimBook {
        let slots = night.slots
        var book = ClaimBook { i in
            let o = slots[Int(i)].order
            return Claim(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt)
        }
        guard let ledger else { return book }
        var keys: [String] = []
        for i in screenable {
            guard let o = slots[Int(i)].outcome else { continue }
            if let k = o.candidate?.key { keys.append(k) }
            if let d = night.deferred(slots[Int(i)]) { keys += ClaimBook.keys(of: d.digest) }
        }
        for c in others.candidates { keys += c.compactMap(\.key) }
        book.remember(try ledger.claims(of: keys))
        return book
    }

    /// Claim order: creation time, then order id. Sorted by time alone (small keys, radix),
    /// then each run of equal times by order id. The other shards' orders (a sharded run)
    /// stand among them as -(index + 1).
    private func claimOrder(_ screenable: [Int32], _ night: NightLoader) -> [Int32] {
        let slots = night.slots
        let others = self.others
        // Handed to the sort as a temporary: a named array would be kept beside the sort's copies.
        var keys = ClaimOrder.sorted(
            {
                var unsorted = screenable.map { i in
                    ClaimOrder.Key(millis: slots.with(Int(i)) { $0.pointee.order.createdAt.millis }, slot: i)
                }
                if others.count > 0 {
                    unsorted += others.claimants.indices.map { j in
                        ClaimOrder.Key(millis: others.claimants[j].createdAt.millis, slot: -Int32(j + 1))
                    }
                }
                return unsorted
            }())
        if others.count == 0 {
            ClaimOrder.breakTies(&keys) { a, b in
                slots.with(Int(a)) { x in slots.with(Int(b)) { y in x.pointee.order.orderID < y.pointee.order.orderID }
                }
            }
        } else {
            func orderID(_ i: Int32) -> String {
                i >= 0 ? slots[Int(i)].order.orderID : others.claimants[Int(-i) - 1].orderID
            }
            ClaimOrder.breakTies(&keys) { a, b in orderID(a) < orderID(b) }
        }
        return keys.map(\.slot)
    }

    /// Order `i` (another shard's when negative) takes what it takes, in claim order; `read`:
    /// what its slot holds for the claim (`ClaimRead`).
    private func claim(
        _ i: Int32, _ read: ClaimRead, _ night: NightLoader, _ evaluator: RuleEvaluator, _ pass: inout ClaimPass
    ) {
        let slots = night.slots
        if i < 0 {
            // Another shard's: it takes what it takes; that shard reports it.
            let j = Int(-i) - 1
            if !others.candidates[j].isEmpty {
                _ = pass.book.select(for: others.claimants[j], candidates: others.candidates[j])
            }
            return
        }
        if case .notScreened = read { return }
        if i == pass.watch { pass.watched = Selection.none }
        if case .deferred(let box) = read {
            let order = screenOrder(slots[Int(i)], night)
            var claimant = Claimant(order)
            claimant.handle = i
            let selection = pass.book.select(
                for: claimant,
                candidates: box.digest.candidates.map { ClaimCandidate($0, platform: box.digest.platform) })
            if i == pass.watch { pass.watched = selection }
            pass.noteSelection(selection, of: i, assumed: box.digest.candidates.isEmpty ? .none : .picked(0))
            if case .picked(let c) = selection, box.digest.candidates.indices.contains(c) {
                let p = box.digest.candidates[c]
                pass.noteTaking(selection, key: claimKey(p, platform: box.digest.platform), token: p.purchaseToken)
            }
            if case .replayOf(let c, _, let key) = selection {
                let candidates = box.digest.candidates
                pass.noteReplay(
                    slot: i, key: key, token: candidates.indices.contains(c) ? candidates[c].purchaseToken : nil)
            }
            if pass.waitsForEvents {
                pass.waiting.append((i, selection))
            } else {
                pass.late[i] = evaluator.findings(order: order, receipt: .decoded(box.digest), selection: selection)
            }
        } else if case .single(let candidate, let claimant) = read {
            var selection = pass.book.select(for: claimant, candidate: candidate)
            // Whether a conflict is a same-user restore may need the catalog's word; asking
            // again changes nothing in the book (a conflict takes nothing).
            if case .replayOf = selection, candidate.nonConsumable == nil,
                let type = screenOrder(slots[Int(i)], night).catalogType
            {
                var c = claimant
                c.catalogType = type
                selection = pass.book.select(for: c, candidate: candidate)
            }
            if i == pass.watch { pass.watched = selection }
            pass.noteSelection(selection, of: i, assumed: .picked(0))
            pass.noteTaking(selection, key: candidate.key, token: night.purchaseToken(at: Int(i)))
            if case .replayOf(_, let original, let key) = selection {
                pass.noteReplay(slot: i, key: key, token: night.purchaseToken(at: Int(i)))
                if let f = evaluator.replayFinding(
                    order: screenOrder(slots[Int(i)], night), transaction: candidate.transactionText,
                    original: original, key: key)
                {
                    pass.late[i] = [f]
                }
            }
        }
    }

    /// The refunds the ledger remembers of the keys tonight's orders took (one each; a
    /// refund Apple reversed no longer stands).
    private func rememberedRefunds(_ took: [(lookup: String, key: String)], refundCount: Int) throws
        -> [RememberedTaking]
    {
        guard let ledger, !took.isEmpty else { return [] }
        let lookups = Array(Set(took.map(\.lookup)))
        // Fewer refunds remembered than keys taken tonight (the usual night): read them all at once.
        let found = refundCount <= lookups.count ? try ledger.allRefunds() : try ledger.refunds(of: lookups)
        var keys: Set<String> = []
        var remembered: [RememberedTaking] = []
        for t in took {
            guard let r = found[t.lookup], r.reversedAt == nil, keys.insert(t.key).inserted else { continue }
            remembered.append(RememberedTaking(key: t.key, refund: r))
        }
        return remembered
    }

    /// Writes the reports in input order from the claims made.
    private func report(_ night: NightLoader, claims: Claims, claimSeconds: Double, writer: any ReportSink) throws
        -> Outcome
    {
        let slots = night.slots
        let late = claims.late
        let book = claims.book
        let pending = claims.events?.pending ?? PendingRefunds()
        let orders = claims.orders
        let receipts = claims.receipts
        let extra = extraFindings(night)
        var items = inputOrder(night, claims: claims, pending: pending, extra: extra)
        // After tonight's orders: what the store events found elsewhere, in their order.
        let afterNight = claims.events?.afterNight ?? []
        items += afterNight.indices.map { .afterNight($0) }

        // Built and formatted on both cores a chunk at a time; the ledger is asked in order.
        // A chunk is written out in order on a thread of its own while the next is built.
        try night.spill.flushPending()
        let shared = SharedNight(
            night: night, screener: self, late: late, pending: pending, extra: extra, afterNight: afterNight)
        let appender = ChunkAppender(writer: writer)
        // On a thrown error too: the queue has let go of the writer before the caller abandons it.
        defer { appender.settle() }
        for chunkStart in stride(from: 0, to: items.count, by: 4096) {
            let chunk = Array(items[chunkStart..<min(chunkStart + 4096, items.count)])
            // Where each report stood, for `merge` (a sharded run's worker) or `backtest`.
            let keys =
                !writer.wantsKeys
                ? nil
                : chunk.map { item -> Int64 in
                    switch item {
                    case .slot(let i): night.sharedPosition(Int(slots.with(Int(i)) { $0.pointee.position }))
                    case .extra(let k): night.sharedPosition(extra[k].position)
                    case .afterNight(let k): ShardReportLines.afterNightKey(claims.events?.afterNightOrder[k] ?? k)
                    }
                }
            let format = writer.formatter
            let spilled = try night.spill.window(
                over: chunk.lazy.compactMap { item in
                    if case .slot(let i) = item { night.spilled(at: Int(i)) } else { nil }
                })
            guard ledger != nil else {
                // Nothing to mark: each report is formatted where it is built, in one pass.
                let built = try shared.parallelMap(chunk) { item throws -> BuiltReport? in
                    try shared.report(item, spilled: spilled).map { BuiltReport(report: $0, lines: format?($0)) }
                }
                try appender.append(built, keys: keys)
                continue
            }
            var reports = try shared.parallelMap(chunk) { item throws -> OrderReport? in
                try shared.report(item, spilled: spilled)
            }
            try mark(&reports)
            let built = try shared.parallelMap(reports) { r -> BuiltReport? in
                r.map { BuiltReport(report: $0, lines: format?($0)) }
            }
            try appender.append(built, keys: keys)
        }
        try appender.finish()
        // Without a ledger nothing remembers them: not worth a million lookups.
        let spooled = ledger == nil ? nil : try newClaims(book, night)
        return Outcome(
            newClaims: spooled?.rows ?? .none, orders: orders, receipts: receipts,
            receiptPlatforms: claims.receiptPlatforms, claimSeconds: claimSeconds, events: claims.events,
            claimsFile: spooled?.file)
    }

    /// The malformed records' and orphan receipts' findings, by where they stood.
    private func extraFindings(_ night: NightLoader) -> [(position: Int, finding: Finding)] {
        var extra: [(position: Int, finding: Finding)] = []
        for m in night.malformed {
            if let f = evaluator.nightFinding(
                MalformedRecord.self, orderID: nil, MalformedRecord.words(location: m.location, reason: m.reason))
            {
                extra.append((m.position, f))
            }
        }
        for o in night.orphans {
            if let f = evaluator.nightFinding(
                OrphanReceipt.self, orderID: o.orderID, OrphanReceipt.words(orderID: o.orderID, location: o.location))
            {
                extra.append((o.position, f))
            }
        }
        extra.sort { $0.position < $1.position }
        return extra
    }

    /// Reports in input order: slots are in first-appearance order; malformed records and
    /// orphan receipts are merged in by position.
    private func inputOrder(
        _ night: NightLoader, claims: Claims, pending: PendingRefunds, extra: [(position: Int, finding: Finding)]
    ) -> [ReportItem] {
        let slots = night.slots
        let late = claims.late
        var items: [ReportItem] = []
        var next = 0
        for i in slots.indices {
            let (position, reported) = slots.with(i) { s in
                (Int(s.pointee.position), s.pointee.order.status == .credited && s.pointee.outcomeKind != nil)
            }
            guard reported,
                night.spilled(at: i) != nil || late[Int32(i)] != nil || pending.has(Int32(i))
            else { continue }
            while next < extra.count, extra[next].position < position {
                items.append(.extra(next))
                next += 1
            }
            items.append(.slot(Int32(i)))
        }
        while next < extra.count {
            items.append(.extra(next))
            next += 1
        }
        return items
    }

    /// Writes chunks of reports in order on a serial queue of its own, one chunk behind
    /// the one being built. Only that queue touches the writer until `finish` returns.
    final class ChunkAppender: @unchecked Sendable {
        private let writer: any ReportSink
        private let queue = DispatchQueue(label: "iapscreen.reports")
        private let group = DispatchGroup()
        /// Set on the queue, read after waiting for it.
        private var failure: Error?

        init(writer: any ReportSink) {
            self.writer = writer
        }

        /// `keys`: where each report stood in the night (a sharded run's worker keeps them for `merge`).
        func append(_ reports: [BuiltReport?], keys: [Int64]?) throws {
            try waitForLast()
            queue.async(group: group) { [self] in
                do {
                    for k in reports.indices {
                        if let b = reports[k] { try writer.append(b.lines, of: b.report, key: keys?[k] ?? 0) }
                    }
                } catch {
                    failure = error
                }
            }
        }

        func finish() throws { try waitForLast() }

        /// Waits for the chunk being written, if any, whatever became of it.
        func settle() { group.wait() }

        private func waitForLast() throws {
            group.wait()
            if let failure { throw failure }
        }
    }

    /// A report and, when the writer wants them made on every core, its lines.
    struct BuiltReport: Sendable {
        var report: OrderReport
        var lines: ReportLines?
    }

    enum ReportItem: Sendable {
        case slot(Int32)
        case extra(Int)
        case afterNight(Int)
    }

    /// What the report workers read; nothing in it changes while they run, which is why
    /// sharing it is safe.
    final class SharedNight: @unchecked Sendable {
        let night: NightLoader
        let screener: NightScreener
        let late: [Int32: [Finding]]
        /// Refunds judged on tonight's orders, their findings made here, after the order's others.
        let pending: PendingRefunds
        let extra: [(position: Int, finding: Finding)]
        let afterNight: [OrderReport]

        init(
            night: NightLoader, screener: NightScreener, late: [Int32: [Finding]], pending: PendingRefunds,
            extra: [(position: Int, finding: Finding)], afterNight: [OrderReport]
        ) {
            self.night = night
            self.screener = screener
            self.late = late
            self.pending = pending
            self.extra = extra
            self.afterNight = afterNight
        }

        /// An item's report, its findings not yet marked by the ledger (`spilled`: its chunk's
        /// entries of the spill file, read at once).
        func report(_ item: ReportItem, spilled: FindingSpill.Window?) throws -> OrderReport? {
            switch item {
            case .extra(let k):
                let f = extra[k].finding
                return OrderReport(
                    orderID: f.orderID, userID: f.userID, platform: nil, productID: nil, amount: nil,
                    currency: nil, createdAt: nil, findings: [f], isOrder: false)
            case .afterNight(let k):
                // An order past tonight's, found by a refund (or its reversal), or a bad event.
                var report = afterNight[k]
                report.refunded = report.findings.contains {
                    $0.rule == RefundedAfterCredit.id.rawValue || $0.rule == Revoked.id.rawValue
                }
                return report
            case .slot(let i):
                let slot = night.slots[Int(i)]
                let entry = try night.spilled(slot).map { try night.spill.readFlushed($0, in: spilled) }
                let o = screener.screenOrder(slot, night)
                let judged = pending.judged(for: i, taker: NightScreener.taker(o, slot: i))
                // A closure, not `screener.finding`: a method taken as a value copies the screener.
                let findings = Revoked.once(
                    (entry?.findings ?? []) + (late[i] ?? []) + judged.compactMap { screener.finding($0) })
                guard !findings.isEmpty else { return nil }
                var report = OrderReport(
                    orderID: o.orderID, userID: o.userID,
                    platform: (o.platform ?? slot.outcome?.receiptPlatform)?.rawValue,
                    productID: o.expectedProductID, amount: o.amount, currency: o.currency,
                    createdAt: o.createdAt, findings: findings,
                    receiptFields: receiptFields(entry, slot))
                report.refunded = judged.contains { $0.call != .refundReversed }
                return report
            }
        }

        /// The receipt's key fields: as the workers kept them for a flagged order, else what
        /// the claims still hold (an order flagged only by its claim, such as a replay).
        private func receiptFields(_ entry: SpilledEntry?, _ slot: NightLoader.Slot) -> [(
            key: String, value: String
        )] {
            if let fields = entry?.receiptFields, !fields.isEmpty { return fields }
            guard let outcome = slot.outcome else { return [] }
            if let digest = night.deferred(slot)?.digest { return digest.keyFields(picked: nil) }
            return outcome.candidate?.keyFields ?? []
        }

        /// `transform` over `items` on both cores, results in order. Eight pieces rather than
        /// two halves, so that a half with heavier reports does not leave a core idle. Each
        /// result slot is written by one thread and read after all have finished.
        func parallelMap<T, R>(_ items: [T], _ transform: (T) throws -> R) throws -> [R] {
            var results = [Result<R, Error>?](repeating: nil, count: items.count)
            let parts = items.count < 64 ? 1 : 8
            let size = (items.count + parts - 1) / parts
            results.withUnsafeMutableBufferPointer { out in
                nonisolated(unsafe) let out = out
                nonisolated(unsafe) let items = items
                nonisolated(unsafe) let transform = transform
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for k in min(items.count, part * size)..<min(items.count, (part + 1) * size) {
                        out[k] = Result { try transform(items[k]) }
                    }
                }
            }
            return try results.map { v in
                guard let v else { throw ReportWriter.WriteError(description: "a report was not built") }
                return try v.get()
            }
        }
    }

    /// Tonight's order in `slot` as the taker of the refunds judged on it (its report says them).
    static func taker(_ o: ScreenOrder, slot: Int32) -> RefundJudge.Taker {
        RefundJudge.Taker(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt, slot: slot, stillCredited: true)
    }

    /// The order as the rules saw it (its platform from the row, else from its receipt).
    func screenOrder(_ slot: NightLoader.Slot, _ night: NightLoader) -> ScreenOrder {
        let row = slot.order.row(pool: night.pool)
        return resolver.resolve(row, index: Int(slot.position), receiptPlatform: slot.outcome?.receiptPlatform)
    }

    /// Each finding's standing in the ledger: reviewed (with the verdict), seen by an
    /// earlier completed run, or new. A chunk of reports asks the ledger twice, not twice a
    /// finding (on a server, each question is a round trip). Without a ledger, left unmarked.
    private func mark(_ reports: inout [OrderReport?]) throws {
        guard let ledger else { return }
        var orders: Set<String> = []
        for r in reports { for f in r?.findings ?? [] { if let order = f.orderID { orders.insert(order) } } }
        let reviews = try ledger.reviews(of: Array(orders))
        var asked: [ReportedFinding] = []
        for r in reports {
            for f in r?.findings ?? [] where f.orderID.map({ reviews[$0] == nil }) ?? true {
                if let reported = ReportedFinding(f) { asked.append(reported) }
            }
        }
        let seen = try ledger.reported(asked)
        for k in reports.indices {
            guard var r = reports[k] else { continue }
            for i in r.findings.indices {
                let f = r.findings[i]
                if let order = f.orderID, let review = reviews[order] {
                    r.findings[i].review = ReviewMark(
                        status: .reviewed, verdict: review.verdict, note: review.note, by: review.by,
                        at: review.at)
                } else if let reported = ReportedFinding(f), seen.contains(reported) {
                    r.findings[i].review = ReviewMark(status: .seen)
                } else {
                    r.findings[i].review = ReviewMark(status: .new)
                }
            }
            reports[k] = r
        }
    }
}
