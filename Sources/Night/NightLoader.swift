import Decompression
import DumpFormats
import IAPBasics
import ReceiptFormats
import Screening
import StoreCrypto

/// One input file as summary.json reports it.
package struct InputRecord: Sendable {
    package var path: String
    package var sha256: String
    package var records: Int

    package init(path: String, sha256: String, records: Int) {
        self.path = path
        self.sha256 = sha256
        self.records = records
    }
}

/// A dump record that could not be read.
struct MalformedItem {
    var position: Int
    var location: SourceLocation
    var reason: String
}

/// Reads a night's order and receipt dumps, joins each order to its receipt, and decodes
/// the receipts on `jobs` workers while the next batch is read. Only what screening needs
/// is kept: the order rows without their payloads, and a small digest per receipt.
///
/// Joining (docs/inputs.md): an order's own `receipt` field wins over the receipts dump; among
/// several receipts-dump rows of one order the latest `received_at` (else the last row)
/// wins. The same `order_id` twice is one order; the later row wins, at the first row's place.
final class NightLoader {
    /// One order of the night, packed: the row, where its receipt came from, and the
    /// workers' verdict (its findings in the spill file, its claim candidate inline).
    struct Slot {
        var order: StoredOrder
        var position: Int32
        /// Bumped whenever the row or its receipt changes; stale worker results are dropped.
        var generation: UInt32 = 0
        /// The workers' verdict under one Rules directory.
        var verdict = Verdict()
        var hasOwnReceipt: Bool
        var dumpReceiptSeen = false
        // Where the latest row can be read again (the explain index), 48 bits in the bytes
        // the layout had spare after the two flags: 136 bytes a slot either way.
        private var rowStartHigh = UInt16.max
        private var rowStartLow = UInt32.max

        /// Where the order's latest row starts in its dump's content; nil: not known.
        var rowStart: Int64? {
            get {
                let v = Int64(rowStartHigh) << 32 | Int64(rowStartLow)
                return v == 0xFFFF_FFFF_FFFF ? nil : v
            }
            set {
                let v = newValue.flatMap { $0 >= 0 && $0 < RowStart.slotLimit - 1 ? $0 : nil } ?? 0xFFFF_FFFF_FFFF
                rowStartHigh = UInt16(truncatingIfNeeded: v >> 32)
                rowStartLow = UInt32(truncatingIfNeeded: v)
            }
        }

        /// A verdict, packed: its kind, the purchase it may claim, where its rare parts are.
        struct Verdict {
            // Widest first: 32 bytes, no padding.
            fileprivate var candidateKey: String?
            fileprivate var candidateDate = Int64.min
            /// Where this order's rare parts are in `NightLoader.rare` (-1: none): most orders
            /// have neither findings to spill nor several candidate purchases.
            var rareIndex: Int32 = -1
            fileprivate var kind: ReceiptScreening.Outcome.Kind?
            fileprivate var receiptPlatform: Platform?
            /// nil: no candidate; else whether it is non-consumable (nil inside: unknown) and family-shared.
            fileprivate var candidateNonConsumable: Bool?? = nil
            fileprivate var candidateFamilyShared = false

            /// The purchase the order may claim, without the rest of the verdict.
            var candidate: ClaimCandidate? {
                guard kind != nil, let nonConsumable = candidateNonConsumable else { return nil }
                var c = ClaimCandidate.empty
                c.key = candidateKey
                c.purchaseDate = candidateDate == .min ? nil : Timestamp(clampingMillis: candidateDate)
                c.nonConsumable = nonConsumable
                c.familyShared = candidateFamilyShared
                return c
            }

            var outcome: ReceiptScreening.Outcome? {
                get {
                    guard let kind else { return nil }
                    var o = ReceiptScreening.Outcome(kind: kind, receiptPlatform: receiptPlatform)
                    o.candidate = candidate
                    return o
                }
                set {
                    kind = newValue?.kind
                    receiptPlatform = newValue?.receiptPlatform
                    let c = newValue?.candidate
                    candidateKey = c?.key
                    candidateDate = c?.purchaseDate?.millis ?? .min
                    candidateNonConsumable = c.map { $0.nonConsumable }
                    candidateFamilyShared = c?.familyShared ?? false
                }
            }
        }

        var rareIndex: Int32 { verdict.rareIndex }

        init(order: StoredOrder, position: Int32, hasOwnReceipt: Bool) {
            self.order = order
            self.position = position
            self.hasOwnReceipt = hasOwnReceipt
        }

        /// The verdict's kind alone: cheaper than building the whole `outcome`.
        var outcomeKind: ReceiptScreening.Outcome.Kind? { verdict.kind }

        /// The platform of the receipt screened, when it was decoded.
        var receiptPlatform: Platform? { verdict.receiptPlatform }

        var candidate: ClaimCandidate? { verdict.candidate }

        /// The verdict without its findings (in the spill file) and without a deferred
        /// digest (in `NightLoader.rare`).
        var outcome: ReceiptScreening.Outcome? { verdict.outcome }
    }

    /// Slots in chunks, so that a growing night never copies what it already holds.
    struct SlotStore {
        private static let chunkSize = 1 << 16
        private var chunks: [[Slot]] = []
        private(set) var count = 0

        var indices: Range<Int> { 0..<count }

        /// Borrowed in place: reading one field of a slot copies neither the slot nor its strings.
        subscript(i: Int) -> Slot {
            get { chunks[i >> 16][i & 0xFFFF] }
            set { chunks[i >> 16][i & 0xFFFF] = newValue }
        }

        /// Reads a slot in place, through `pointee`: `self[i].field`, or handing the slot to a
        /// closure, copies the whole slot, strings and all (measured: most of the claims' time).
        func with<R>(_ i: Int, _ body: (UnsafePointer<Slot>) -> R) -> R {
            chunks[i >> 16].withUnsafeBufferPointer { chunk in
                guard let base = chunk.baseAddress, chunk.indices.contains(i & 0xFFFF) else {
                    fatalError("slot \(i) is past the end (\(count) slots)")
                }
                return body(base + (i & 0xFFFF))
            }
        }

        mutating func append(_ slot: Slot) {
            if count & 0xFFFF == 0 {
                var chunk: [Slot] = []
                chunk.reserveCapacity(SlotStore.chunkSize)
                chunks.append(chunk)
            }
            chunks[chunks.count - 1].append(slot)
            count += 1
        }
    }

    /// What few orders have: findings waiting in the spill file, a digest kept for the claims.
    struct Rare {
        var spilled: FindingSpill.Ref?
        var deferred: ReceiptDigestBox?
        /// A Google purchase's token, kept for the ledger (`ReceiptScreening.keepsTokens`).
        var purchaseToken: String?
    }

    // `@exclusivity(unchecked)` on the few fields every record touches: no access to one of
    // them starts while another is under way (each is read or set whole, or through
    // `SlotStore.with`, whose closures only read); the run-time check was a thread-local
    // lookup at every use (swift_beginAccess).
    @exclusivity(unchecked) private(set) var slots = SlotStore()
    private(set) var rare: [Rare] = []

    func spilled(_ slot: Slot) -> FindingSpill.Ref? { rare(slot.rareIndex)?.spilled }
    func deferred(_ slot: Slot) -> ReceiptDigestBox? { rare(slot.rareIndex)?.deferred }
    /// The same for slot `i`, read in place.
    func spilled(at i: Int) -> FindingSpill.Ref? { rare(slots.with(i) { $0.pointee.rareIndex })?.spilled }
    func deferred(at i: Int) -> ReceiptDigestBox? { rare(slots.with(i) { $0.pointee.rareIndex })?.deferred }
    /// Tonight's slots of these orders (a scan: asked for a few).
    func slots(ofOrders ids: Set<String>) -> [String: Int32] {
        guard !ids.isEmpty else { return [:] }
        var out: [String: Int32] = [:]
        for i in slots.indices {
            let id = slots.with(i) { $0.pointee.order.orderID }
            if ids.contains(id) { out[id] = Int32(i) }
        }
        return out
    }
    /// Each slot's Google token hash (`ReceiptScreening.hashesTokens`): a dense array, only
    /// as long as the last slot that has one.
    private var tokenHashes: [UInt64] = []
    func tokenHash(at i: Int) -> UInt64 { i < tokenHashes.count ? tokenHashes[i] : 0 }
    func purchaseToken(at i: Int) -> String? { rare(slots.with(i) { $0.pointee.rareIndex })?.purchaseToken }
    private func rare(_ index: Int32) -> Rare? { index < 0 ? nil : rare[Int(index)] }
    /// The purchases the receipts of orders not credited name (`ReceiptScreening.readsUncredited`),
    /// by slot: few orders, so beside the slots, not in each.
    private(set) var uncredited: [Int32: UncreditedPurchase] = [:]
    func uncreditedPurchase(at i: Int) -> UncreditedPurchase? { uncredited[Int32(truncatingIfNeeded: i)] }
    @exclusivity(unchecked) private var slotOf = OrderIDTable()
    /// When the receipts-dump row an order took was received, while the dumps are read: few
    /// orders take one, so it is kept beside the slots, not in each (8 MB at 10^6 orders).
    @exclusivity(unchecked) private var dumpReceivedAt: [Int32: Timestamp] = [:]
    private(set) var malformed: [MalformedItem] = []
    private(set) var orphans: [(position: Int, orderID: String, location: SourceLocation)] = []
    private var orphanIDs: Set<String> = []
    package private(set) var inputs: [InputRecord] = []
    @exclusivity(unchecked) private var position = 0
    /// How many records the orders dumps held (after `load`).
    private var orderRecords = 0
    /// A position as the other workers of a sharded run and `merge` compare it.
    func sharedPosition(_ position: Int) -> Int64 { owned.sharedPosition(position, orderRecords: orderRecords) }
    let pool: StringPool
    let spill: FindingSpill
    /// The one order `explain` asks about, told which receipt the join chose for it.
    private let watched: WatchedOrder?
    /// Where every record stands, for the explain index `screen` leaves (nil: not wanted).
    let places: DumpPlaces?

    let screening: ReceiptScreening
    let limits: Limits
    /// nil for a part restored from a pass file: nothing is left to decode.
    private let batcher: ReceiptBatcher?
    /// `backtest`: the candidate Rules directory's verdicts, kept slot for slot beside.
    private let candidateRules: CandidateVerdicts?

    /// Which orders are kept (a sharded run's worker: its shard's, with their receipts and
    /// orphans). A malformed record is the shard's of the id found so, else the first shard's.
    let owned: OwnedOrders

    /// `pool` and `spill`: the night's, when it is read in parts (`NightPasses`), else new.
    /// `places`: where the records stand is noted there.
    init(
        screening: ReceiptScreening, limits: Limits, jobs: Int, owned: OwnedOrders = .all,
        watching watched: WatchedOrder? = nil, candidate: CandidateVerdicts? = nil, pool: StringPool? = nil,
        spill: FindingSpill? = nil, places: DumpPlaces? = nil
    ) throws {
        self.watched = watched
        self.places = places
        self.owned = owned
        self.spill = try spill ?? FindingSpill()
        self.pool = pool ?? StringPool()
        self.screening = screening
        self.limits = limits
        candidateRules = candidate
        batcher = ReceiptBatcher(
            screening: screening, jobs: jobs,
            candidate: candidate.map {
                ReceiptBatcher.CandidateRules(screening: $0.screening, reverifies: $0.reverifies)
            })
    }

    /// A loader of no orders: a night read in parts (`NightPasses`) holds them elsewhere.
    init(emptyFor screening: ReceiptScreening, limits: Limits) throws {
        watched = nil
        places = nil
        candidateRules = nil
        batcher = nil
        owned = .all
        pool = StringPool()
        spill = try FindingSpill()
        self.screening = screening
        self.limits = limits
    }

    /// A part of the night as `save` left it, read back whole (`NightPasses`).
    init(
        restoring f: PassFile, screening: ReceiptScreening, limits: Limits, owned: OwnedOrders, pool: StringPool,
        spill: FindingSpill
    ) throws(PassFile.Failure) {
        watched = nil
        places = nil
        candidateRules = nil
        batcher = nil
        self.owned = owned
        self.pool = pool
        self.spill = spill
        self.screening = screening
        self.limits = limits
        try f.rewind()
        for _ in 0..<(try f.count()) { slots.append(try Slot(from: f)) }
        for _ in 0..<(try f.count()) {
            var r = Rare()
            r.spilled = try f.optional { () throws(PassFile.Failure) in
                FindingSpill.Ref(offset: try f.int64(), length: try f.uint32())
            }
            r.deferred = try f.optional { () throws(PassFile.Failure) in ReceiptDigestBox(try f.digest()) }
            r.purchaseToken = try f.optionalString()
            rare.append(r)
        }
        for _ in 0..<(try f.count()) { tokenHashes.append(try f.uint64()) }
        for _ in 0..<(try f.count()) {
            let slot = Int32(truncatingIfNeeded: try f.int())
            let key = try f.string()
            uncredited[slot] = UncreditedPurchase(key: key, token: try f.optionalString())
        }
        for _ in 0..<(try f.count()) {
            let position = try f.int()
            let location = try f.location()
            malformed.append(MalformedItem(position: position, location: location, reason: try f.string()))
        }
        for _ in 0..<(try f.count()) {
            let position = try f.int()
            let id = try f.string()
            orphans.append((position, id, try f.location()))
        }
        for _ in 0..<(try f.count()) {
            let path = try f.string()
            let sha = try f.string()
            inputs.append(InputRecord(path: path, sha256: sha, records: try f.int()))
        }
        guard f.atEnd else {
            throw PassFile.Failure(description: "a pass file of the night's orders holds more than was saved")
        }
        for i in slots.indices {
            let r = slots.with(i) { $0.pointee.rareIndex }
            guard r >= -1, Int(r) < rare.count else {
                throw PassFile.Failure(description: "a pass file of the night's orders points past its own parts")
            }
        }
        guard uncredited.keys.allSatisfy({ slots.indices.contains(Int($0)) }) else {
            throw PassFile.Failure(description: "a pass file of the night's orders points past its own slots")
        }
    }

    /// Everything the claims and reports need of this part of the night, once it is loaded
    /// (its findings are in the night's spill file, flushed here).
    func save(to f: PassFile) throws(PassFile.Failure) {
        do {
            try spill.flushPending()
        } catch {
            throw PassFile.Failure(description: "\(error)")
        }
        try f.put(slots.count)
        for i in slots.indices { try slots[i].write(to: f) }
        try f.put(rare.count)
        for r in rare {
            try f.put(r.spilled) { (ref) throws(PassFile.Failure) in
                try f.put(ref.offset)
                try f.put(ref.length)
            }
            try f.put(r.deferred) { (box) throws(PassFile.Failure) in try f.put(box.digest) }
            try f.put(r.purchaseToken)
        }
        try f.put(tokenHashes.count)
        for h in tokenHashes { try f.put(h) }
        try f.put(uncredited.count)
        for (slot, p) in uncredited.sorted(by: { $0.key < $1.key }) {
            try f.put(Int(slot))
            try f.put(p.key)
            try f.put(p.token)
        }
        try f.put(malformed.count)
        for m in malformed {
            try f.put(m.position)
            try f.put(m.location)
            try f.put(m.reason)
        }
        try f.put(orphans.count)
        for o in orphans {
            try f.put(o.position)
            try f.put(o.orderID)
            try f.put(o.location)
        }
        try f.put(inputs.count)
        for r in inputs {
            try f.put(r.path)
            try f.put(r.sha256)
            try f.put(r.records)
        }
    }

    /// Puts the candidate's verdicts in place of the slots' own (which the candidate keeps):
    /// the night is then screened under the candidate's Rules. False without a candidate.
    @discardableResult
    func useCandidateVerdicts() -> Bool {
        guard let candidateRules, candidateRules.verdicts.count == slots.count else { return false }
        for i in slots.indices { swap(&slots[i].verdict, &candidateRules.verdicts[i]) }
        swap(&rare, &candidateRules.rare)
        swap(&tokenHashes, &candidateRules.tokenHashes)
        return true
    }

    /// Reads every orders dump, then every receipts dump; throws when a file cannot be read.
    /// `progress`, when given, counts the bytes read and is told the orders so far after
    /// every batch of records.
    func load(orders: [String], receipts: [String], progress: (any NightProgress)? = nil) throws(InputError) {
        let owned = self.owned
        for path in orders {
            try read(path, { (r) throws(InputError) in try owned.nextOrder(r) }, addOrder, progress: progress)
        }
        orderRecords = position
        for path in receipts {
            try read(path, { (r) throws(InputError) in try owned.nextReceipt(r) }, addReceipt, progress: progress)
        }
        try apply(batcher?.drain() ?? [])
        // Every receipt is decoded: the workers end here, not whenever the loader goes away.
        batcher?.stop()
        // Credited orders whose receipt never came: screened as missing (no decoding).
        for i in slots.indices where slots.with(i, { $0.pointee.order.status == .credited }) {
            let missing = slots.with(i) { $0.pointee.outcomeKind == nil }
            if missing {
                try settle(
                    i,
                    screening.screen(slots[i].order.row(pool: pool), index: Int(slots[i].position), decoded: .missing))
            }
            if let candidateRules, candidateRules.verdicts[i].kind == nil {
                try settleCandidate(
                    candidateRules, i,
                    candidateRules.screening.screen(
                        slots[i].order.row(pool: pool), index: Int(slots[i].position), decoded: .missing))
            }
        }
        slotOf = OrderIDTable()
        dumpReceivedAt = [:]
        orphanIDs = []
    }

    /// Reads one file, its records parsed on a thread of their own (`DumpReadAhead`), and
    /// records its digest and count.
    private func read<Row: Sendable>(
        _ path: String, _ next: @escaping @Sendable (DumpReader) throws(InputError) -> ShardRead<Row>?,
        _ add: (consuming Row, _ start: Int64?) throws(InputError) -> Void, progress: (any NightProgress)?
    ) throws(InputError) {
        places?.beginFile(path)
        inputs.append(
            try readHashed(path, limits: limits, counted: progress?.bytes) { (reader) throws(InputError) in
                // Each item with where it starts, read on the same thread as the item.
                let ahead = DumpReadAhead(reader) { (r) throws(InputError) in try next(r).map { ($0, r.lastItemStart) }
                }
                while var batch = try ahead.nextBatch() {
                    while let (item, start) = batch.take() {
                        places?.sawItem(start: start)
                        switch consume item {
                        case .elsewhere: _ = nextPosition()
                        case .malformed(let m, let ownID): addMalformed(m, ownID: ownID)
                        case .row(let row): try add(consume row, start)
                        }
                        if position % 4096 == 0 { try apply(batcher?.poll() ?? []) }
                    }
                    progress?.tick(count: slots.count)
                }
                places?.endFile(checkpoints: reader.gzipCheckpoints)
            })
    }

    private func orderID(ofSlot slot: Int32) -> String {
        slots.with(Int(slot)) { $0.pointee.order.orderID }
    }

    private func nextPosition() -> Int {
        position += 1
        return position - 1
    }

    /// A malformed record is its shard's when its order id could be read alone, else the
    /// first shard's.
    private func addMalformed(_ m: UnreadableRecord, ownID: Bool) {
        guard ownID || owned.ownsTheUnattributed else {
            _ = nextPosition()
            return
        }
        malformed.append(MalformedItem(position: nextPosition(), location: m.location, reason: m.reason))
    }

    private func addOrder(_ row: consuming OrderRow, start: Int64?) {
        if !owned.owns(row.orderID) {
            _ = nextPosition()
            return
        }
        // Taken out of the row: the job carries the row without it, moved, not copied.
        let payload = row.receipt.take()
        let stored = StoredOrder(row, pool: pool)
        let index: Int
        let fresh = Int32(truncatingIfNeeded: slots.count)
        // One hash of the id whether the order is new or seen again.
        let existing = slotOf.slot(of: row.orderID, insertingIfAbsent: fresh, idOf: orderID(ofSlot:))
        if existing != fresh {
            index = Int(existing)
            _ = nextPosition()
            slots[index].order = stored
            slots[index].generation &+= 1
            slots[index].hasOwnReceipt = payload != nil
            slots[index].dumpReceiptSeen = false
            dumpReceivedAt[Int32(index)] = nil
            if !uncredited.isEmpty { uncredited[Int32(index)] = nil }
            slots[index].verdict = Slot.Verdict()
            candidateRules?.verdicts[index] = Slot.Verdict()
        } else {
            index = slots.count
            slots.append(Slot(order: stored, position: Int32(nextPosition()), hasOwnReceipt: payload != nil))
            candidateRules?.verdicts.append(Slot.Verdict())
        }
        if places != nil { slots[index].rowStart = start }
        watched?.saw(row, payload: payload)
        let credited = row.status == .credited
        if let payload, credited || screening.readsUncredited, let batcher {
            batcher.submit(
                ReceiptBatcher.Job(
                    slot: index, generation: slots[index].generation, row: row,
                    position: Int(slots[index].position), payload: payload, uncredited: !credited))
        }
    }

    private func addReceipt(_ r: consuming ReceiptRow, start: Int64?) throws(InputError) {
        let pos = nextPosition()
        guard let found = slotOf.slot(of: r.orderID, idOf: orderID(ofSlot:)) else {
            // Another shard's order, or its orphan.
            if !owned.owns(r.orderID) { return }
            if orphanIDs.insert(r.orderID).inserted { orphans.append((pos, r.orderID, r.location)) }
            return
        }
        let index = Int(found)
        guard !slots[index].hasOwnReceipt else { return }
        guard
            ReceiptRowOrder.replaces(
                seen: slots[index].dumpReceiptSeen, old: dumpReceivedAt[Int32(index)], new: r.receivedAt)
        else {
            return
        }
        slots[index].dumpReceiptSeen = true
        dumpReceivedAt[Int32(index)] = r.receivedAt
        slots[index].generation &+= 1
        slots[index].verdict = Slot.Verdict()
        candidateRules?.verdicts[index] = Slot.Verdict()
        watched?.took(r)
        do {
            try places?.tookReceipt(slot: index, location: r.location, start: start)
        } catch {
            throw InputError(path: "pass file", reason: error.description)
        }
        if !uncredited.isEmpty { uncredited[Int32(index)] = nil }
        let credited = slots[index].order.status == .credited
        guard credited || screening.readsUncredited else { return }
        batcher?.submit(
            ReceiptBatcher.Job(
                slot: index, generation: slots[index].generation, row: slots[index].order.row(pool: pool),
                position: Int(slots[index].position), payload: r.receipt, uncredited: !credited))
    }

    /// Results by batch, each read where it lies (a result copied out retains its outcome's parts).
    private func apply(_ batches: [[ReceiptBatcher.Result]]) throws(InputError) {
        for results in batches {
            for i in results.indices where slots[results[i].slot].generation == results[i].generation {
                if results[i].isUncredited {
                    uncredited[Int32(results[i].slot)] = results[i].uncredited
                    continue
                }
                try settle(results[i].slot, results[i].outcome)
                if let candidateRules, let outcome = results[i].candidateOutcome {
                    try settleCandidate(candidateRules, results[i].slot, outcome)
                }
            }
        }
    }

    /// Keeps an order's verdict; its findings go to the spill file.
    private func settle(_ slot: Int, _ outcome: ReceiptScreening.Outcome) throws(InputError) {
        slots[slot].verdict = try verdict(slot, outcome, rare: &rare, tokenHashes: &tokenHashes)
    }

    /// The same for the candidate's verdict (the spill file is shared).
    private func settleCandidate(_ candidate: CandidateVerdicts, _ slot: Int, _ outcome: ReceiptScreening.Outcome)
        throws(InputError)
    {
        candidate.verdicts[slot] = try verdict(
            slot, outcome, rare: &candidate.rare, tokenHashes: &candidate.tokenHashes)
    }

    private func verdict(
        _ slot: Int, _ outcome: ReceiptScreening.Outcome, rare: inout [Rare],
        tokenHashes: inout [UInt64]
    ) throws(InputError) -> Slot.Verdict {
        var kept = outcome
        var parts = Rare()
        if let encoded = outcome.findings {
            do {
                parts.spilled = try spill.append(encoded)
            } catch {
                throw InputError(path: "spill file", reason: "\(error)")
            }
            kept.findings = nil
        }
        parts.deferred = outcome.deferred
        parts.purchaseToken = outcome.purchaseToken
        if outcome.tokenHash != 0 {
            if tokenHashes.count <= slot { tokenHashes += repeatElement(0, count: slot + 1 - tokenHashes.count) }
            tokenHashes[slot] = outcome.tokenHash
        } else if slot < tokenHashes.count {
            tokenHashes[slot] = 0
        }
        kept.deferred = nil
        kept.purchaseToken = nil
        var verdict = Slot.Verdict()
        // A slot settled again (a later row of the order) leaves its old entry unused.
        if parts.spilled != nil || parts.deferred != nil || parts.purchaseToken != nil {
            verdict.rareIndex = Int32(rare.count)
            rare.append(parts)
        }
        verdict.outcome = kept
        return verdict
    }
}

extension NightLoader.Slot {
    /// As a pass file keeps it, once the night is loaded: the join's state (the generation,
    /// which receipt row won) is over by then, and a restored part reads nothing more.
    func write(to f: PassFile) throws(PassFile.Failure) {
        try order.write(to: f)
        try f.put(position)
        try verdict.write(to: f)
    }

    init(from f: PassFile) throws(PassFile.Failure) {
        self.init(order: try StoredOrder(from: f), position: try f.int32(), hasOwnReceipt: false)
        verdict = try Verdict(from: f)
    }
}

extension NightLoader.Slot.Verdict {
    func write(to f: PassFile) throws(PassFile.Failure) {
        try f.put(candidateKey)
        try f.put(candidateDate)
        try f.put(rareIndex)
        try f.put(kind?.rawValue ?? 0xFF)
        try f.put(receiptPlatform?.rawValue)
        // nil, unknown, consumable, non-consumable.
        let nonConsumable: UInt8 =
            switch candidateNonConsumable {
            case nil: 0
            case .some(nil): 1
            case .some(false): 2
            case .some(true): 3
            }
        try f.put(nonConsumable)
        try f.put(candidateFamilyShared)
    }

    init(from f: PassFile) throws(PassFile.Failure) {
        self.init()
        candidateKey = try f.optionalString()
        candidateDate = try f.int64()
        rareIndex = try f.int32()
        let kind = try f.uint8()
        if kind != 0xFF {
            guard let k = ReceiptScreening.Outcome.Kind(rawValue: kind) else {
                throw PassFile.Failure(description: "a pass file holds \(kind) for a verdict")
            }
            self.kind = k
        }
        receiptPlatform = try f.optionalRawValue(Platform.self)
        switch try f.uint8() {
        case 0: candidateNonConsumable = nil
        case 1: candidateNonConsumable = .some(nil)
        case 2: candidateNonConsumable = .some(false)
        case 3: candidateNonConsumable = .some(true)
        case let b: throw PassFile.Failure(description: "a pass file holds \(b) for a product type")
        }
        candidateFamilyShared = try f.bool()
    }
}

extension PassFile {
    func put(_ l: SourceLocation) throws(Failure) {
        try put(l.file)
        switch l.position {
        case .line(let n):
            try put(false)
            try put(n)
        case .row(let n):
            try put(true)
            try put(n)
        }
    }

    func location() throws(Failure) -> SourceLocation {
        let file = try string()
        return try bool() ? SourceLocation(file: file, row: try int()) : SourceLocation(file: file, line: try int())
    }
}
