import Consumption
import Decompression
import Foundation
import IAPBasics
import JSONText
import Screening
import StoreCrypto

/// What the explain index keeps of a night's claims (`NightScreener.keepsSelections`): the
/// selections screening did not assume, the evaluator as the claims left it (orders and
/// refunds per user, refund reasons), and the refunds judged on tonight's orders.
struct ExplainedClaims {
    var selections: [Int32: Selection]
    var evaluator: RuleEvaluator
    var pending: PendingRefunds?
    var screener: NightScreener
}

/// The explain index of a night screened at once, written beside its reports: under a
/// temporary name in `--out`, sealed with the ledger's run once the ledger has it, and put in
/// place with the reports (`ExplainIndexFormat` has the layout). Whatever goes wrong with it
/// is said (`problem`) and leaves the night as it was: explain then screens the night again.
package final class ExplainIndexOutput {
    package static let fileName = ExplainIndexFormat.fileName

    let stamp: ExplainIndexStamp
    private let file: TempFile
    private var buffer: [UInt8] = []
    private(set) var offset: Int64 = 0
    /// Why there is no index after all (said on stderr by `screen`); nil while all is well.
    package private(set) var problem: String?
    private var sealed = false

    package init(directory: String, stamp: ExplainIndexStamp) throws {
        self.stamp = stamp
        file = try TempFile(in: directory, for: Self.fileName)
    }

    /// The index was not made: why, in words.
    package func fail(_ why: String) {
        problem = problem ?? why
    }

    func append(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        offset += Int64(bytes.count)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends the entry at `index` of its section, straight into the buffer.
    func append(_ entry: some IndexEntry, index: Int) throws {
        let before = buffer.count
        entry.append(index: index, to: &buffer)
        offset += Int64(buffer.count - before)
        if buffer.count >= 1 << 20 { try flush() }
    }

    func flush() throws {
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Appends the ledger's run (nil: no ledger) and syncs: the index is whole, still under
    /// its temporary name.
    package func seal(ledger: LedgerRunStamp?) throws {
        guard problem == nil else { return }
        let run: JSONValue =
            ledger.map {
                .object(
                    JSONObject([
                        ("run", JSONValue.integer($0.run)), ("started_at", .string($0.startedAt)),
                        ("finished_at", .string($0.finishedAt)),
                    ]))
            } ?? .null
        let json = Array(JSONWriter().string(.object(JSONObject([("ledger", run)]))).utf8)
        try append(json)
        var tail: [UInt8] = []
        LittleEndian.put(UInt32(json.count), into: &tail)
        try append(tail + ExplainIndexFormat.endMagic)
        try flush()
        try file.sync()
        sealed = true
    }

    /// Puts the index in place (a sealed one; else any index left there by an earlier night
    /// goes, so that no folder holds an index of other reports).
    package func publish() throws {
        guard sealed, problem == nil else {
            discard()
            let stale = file.final
            if FileManager.default.fileExists(atPath: stale) { try FileManager.default.removeItem(atPath: stale) }
            return
        }
        try file.publish()
    }

    package func discard() { file.discard() }
}

/// Writes the body of the explain index (everything but the ledger's run) from a night read
/// at once and screened. Sorting never holds the whole night: the orders (and the events'
/// names) are taken a slice of the hash space at a time, each slice sorted and written in turn.
struct ExplainIndexWriter {
    let loader: NightLoader
    let places: DumpPlaces
    let claims: ExplainedClaims
    let events: StoreEventNight?
    let requests: [(request: ConsumptionRequest, facts: ConsumptionFacts)]
    let consumption: ConsumptionSettings
    /// The ledger will keep tonight's claims: an original taker's time is written as the
    /// ledger keeps it, as explain after the run reads it there.
    let ledgerKeepsRun: Bool

    /// Entries sorted at once, at the most.
    static let sliceEntries = 1 << 18

    func write(to out: ExplainIndexOutput) throws {
        try out.append(ExplainIndexFormat.magic)
        let ordersAt = out.offset
        let receipts = try PassFile()
        let facts = try PassFile()
        let counts = try writeOrders(out, receipts: receipts, facts: facts)
        let receiptsAt = out.offset
        try copy(receipts, into: out)
        let factsAt = out.offset
        try copy(facts, into: out)
        let eventRecords = try PassFile()
        let offsets = try writeEventRecords(eventRecords)
        let eventKeysAt = out.offset
        let eventKeys = try writeEventKeys(out, offsets: offsets)
        let eventsAt = out.offset
        try copy(eventRecords, into: out)
        let sections = JSONObject([
            ("orders", Self.section(ordersAt, counts.orders)), ("receipts", Self.section(receiptsAt, counts.receipts)),
            ("facts", Self.section(factsAt, Int(facts.writtenBytes))),
            ("event_keys", Self.section(eventKeysAt, eventKeys)),
            ("events", Self.section(eventsAt, Int(eventRecords.writtenBytes))),
        ])
        try writeHeader(out, sections: sections)
    }

    private static func section(_ offset: Int64, _ count: Int) -> JSONValue {
        .array([JSONValue.integer(offset), JSONValue.integer(count)])
    }

    private func writeHeader(_ out: ExplainIndexOutput, sections: JSONObject) throws {
        let dumps: [JSONValue] = places.files.map { f in
            .object(
                JSONObject([
                    ("path", .string(f.path)),
                    ("second_item", f.secondItemStart.map(JSONValue.integer) ?? .null),
                    (
                        "members",
                        .array(
                            f.checkpoints.map {
                                .array([
                                    JSONValue.integer($0.compressedOffset), JSONValue.integer($0.decompressedOffset),
                                ])
                            })
                    ),
                ]))
        }
        let night = JSONObject([
            ("store_events_read", events.map { JSONValue.integer($0.counts.read) } ?? .null),
            ("refunds_judged", .bool(claims.evaluator.refundsPerUser != nil)),
        ])
        let header = Array(
            JSONWriter().string(
                .object(
                    JSONObject([
                        ("stamp", .object(out.stamp.json)), ("dumps", .array(dumps)), ("sections", .object(sections)),
                        ("night", .object(night)),
                    ]))
            ).utf8)
        guard header.count <= ExplainIndexFormat.maxHeaderBytes else {
            throw PassFile.Failure(description: "its header would take \(header.count) bytes")
        }
        try out.append(header)
        var tail: [UInt8] = []
        LittleEndian.put(UInt32(header.count), into: &tail)
        try out.append(tail + (try Digest.sha256(header)))
    }

    // MARK: Orders

    /// Every order's entry in hash order, its receipts-dump row's entry and its facts beside.
    private func writeOrders(_ out: ExplainIndexOutput, receipts: PassFile, facts: PassFile) throws -> (
        orders: Int, receipts: Int
    ) {
        let slots = loader.slots
        let slices = Self.slices(slots.count)
        let requestsByOrder = Dictionary(grouping: requests, by: { $0.facts.order?.orderID ?? "" })
        let tonight = originalsTonight()
        let fileOfPath = Dictionary(
            places.files.enumerated().map { ($0.element.path, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var written = (orders: 0, receipts: 0)
        var inSlice = [Bool](repeating: false, count: slots.count)
        // The dump of an order's row, by the pool's id of its path (a handful of ids).
        var fileOfPool: [UInt32: Int] = [:]
        var receiptEntry: [UInt8] = []
        for slice in 0..<slices {
            var pairs: [(hash: UInt64, slot: Int32)] = []
            for i in slots.indices {
                let h = slots.with(i) { ShardSpec.fnv1a64($0.pointee.order.orderID) }
                if Self.slice(of: h, among: slices) == slice { pairs.append((h, Int32(i))) }
            }
            pairs.sort { ($0.hash, $0.slot) < ($1.hash, $1.slot) }
            for p in pairs { inSlice[Int(p.slot)] = true }
            let taken = try receiptRows(in: inSlice)
            for p in pairs {
                inSlice[Int(p.slot)] = false
                // Read in place: copying a million slots, strings and all, was most of the time.
                let (file, start, place, isRow, position, ownReceipt) = slots.with(Int(p.slot)) { s in
                    (
                        s.pointee.order.file, s.pointee.rowStart, s.pointee.order.place, s.pointee.order.placeIsRow,
                        s.pointee.position, s.pointee.hasOwnReceipt
                    )
                }
                var entryFacts: UInt64 = 0
                if mayHaveFacts(p.slot, requests: requestsByOrder) {
                    let f = orderFacts(slots[Int(p.slot)], p.slot, requests: requestsByOrder, tonight: tonight)
                    if !f.isEmpty { entryFacts = UInt64(try Self.putRecord(.object(f.json), into: facts)) + 1 }
                }
                if fileOfPool[file] == nil {
                    fileOfPool[file] = loader.pool.string(file).flatMap { fileOfPath[$0] } ?? Int(UInt16.max)
                }
                let record = RecordPlace(
                    file: fileOfPool[file] ?? Int(UInt16.max), start: start ?? RowStart.unknown, place: Int(place),
                    isRow: isRow)
                try out.append(
                    OrderEntry(hash: p.hash, record: record, position: Int(position), facts: entryFacts),
                    index: written.orders)
                written.orders += 1
                // An order's own receipt wins over the receipts dump's rows.
                if let r = taken[p.slot], !ownReceipt {
                    let place = RecordPlace(file: Int(r.file), start: r.start, place: Int(r.place), isRow: r.isRow)
                    receiptEntry.removeAll(keepingCapacity: true)
                    ReceiptEntry(hash: p.hash, record: place).append(index: written.receipts, to: &receiptEntry)
                    try receipts.put(receiptEntry)
                    written.receipts += 1
                }
            }
        }
        return written
    }

    /// Whether the claims may have decided anything of slot `i` beyond screening's assumptions
    /// (a cheap look before the facts are gathered: most orders have none).
    private func mayHaveFacts(
        _ i: Int32, requests: [String: [(request: ConsumptionRequest, facts: ConsumptionFacts)]]
    ) -> Bool {
        let e = claims.evaluator
        return claims.selections[i] != nil || claims.pending?.has(i) == true || !requests.isEmpty
            || e.needsOrdersPerUser || e.refundsPerUser.map { !$0.isEmpty } == true || !e.refundReasons.isEmpty
    }

    /// The receipts-dump row each slot of the slice took last.
    private func receiptRows(in slice: [Bool]) throws -> [Int32: ReceiptRowPlace] {
        var out: [Int32: ReceiptRowPlace] = [:]
        let f = places.receiptRows
        try f.rewind()
        while !f.atEnd {
            let r = try f.take(ReceiptRowPlace.size) { ReceiptRowPlace.unpack($0) }
            if Int(r.slot) < slice.count, slice[Int(r.slot)] { out[Int32(bitPattern: r.slot)] = r }
        }
        return out
    }

    /// What the claims decided of the order in `slot` beyond screening's assumptions.
    private func orderFacts(
        _ slot: NightLoader.Slot, _ i: Int32,
        requests: [String: [(request: ConsumptionRequest, facts: ConsumptionFacts)]], tonight: Set<String>
    ) -> OrderFacts {
        let orderID = slot.order.orderID
        var f = OrderFacts(orderID: orderID)
        if let asked = requests[orderID] {
            f.requests = RequestWords.of(order: orderID, in: asked, settings: consumption)
        }
        guard slot.order.status == .credited else { return f }
        if var s = claims.selections[i] {
            switch s {
            case .replayOf(let c, let original, let key):
                f.originalTonight = tonight.contains(original.orderID)
                s = .replayOf(candidate: c, original: kept(original), key: key)
            case .restore(let c, let original):
                s = .restore(candidate: c, original: kept(original))
            case .none, .picked: break
            }
            f.selection = s
        }
        let evaluator = claims.evaluator
        let userID = slot.order.userID
        if evaluator.needsOrdersPerUser { f.ordersOfUser = evaluator.ordersPerUser[userID] }
        if let refunds = evaluator.refundsPerUser?[userID], refunds != 0 { f.refundsOfUser = refunds }
        f.eventReason = evaluator.refundReasons[orderID]
        if let pending = claims.pending, pending.has(i) {
            var taker = NightScreener.taker(claims.screener.screenOrder(slot, loader), slot: i)
            // After the run, explain finds the taker of a refund among the ledger's claims; a
            // replay, which took nothing, stays tonight's row.
            if case .replayOf = f.selection {} else { taker.createdAt = asTheLedgerKeepsIt(taker.createdAt) }
            f.eventFindings = pending.judged(for: i, taker: taker).compactMap(claims.screener.finding)
        }
        return f
    }

    /// A claim as explain reads it from the ledger after the run.
    private func kept(_ c: Claim) -> Claim {
        var kept = c
        kept.createdAt = asTheLedgerKeepsIt(c.createdAt)
        return kept
    }

    /// A time as the ledger keeps it: milliseconds, printed only when they are not whole seconds.
    private func asTheLedgerKeepsIt(_ t: Timestamp) -> Timestamp {
        guard ledgerKeepsRun else { return t }
        var kept = t
        kept.hasMilliseconds = t.millis % 1000 != 0
        return kept
    }

    /// Which replays' first takers are in tonight's dumps (explain says "tonight").
    private func originalsTonight() -> Set<String> {
        var originals: Set<String> = []
        for case .replayOf(_, let original, _) in claims.selections.values { originals.insert(original.orderID) }
        guard !originals.isEmpty else { return [] }
        return Set(loader.slots(ofOrders: originals).keys)
    }

    // MARK: Events

    /// Each event that names a transaction, as its record; the offset of each (by item).
    private func writeEventRecords(_ f: PassFile) throws -> [(names: [String], offset: UInt64)] {
        guard let events else { return [] }
        var out: [(names: [String], offset: UInt64)] = []
        for item in events.items {
            guard let (names, line) = StoreEventWords.line(item) else { continue }
            let record = JSONObject([("names", .array(names.map(JSONValue.string))), ("line", .string(line))])
            out.append((names, UInt64(try Self.putRecord(.object(record), into: f))))
        }
        return out
    }

    /// Each name of each event, in hash order; how many.
    private func writeEventKeys(_ out: ExplainIndexOutput, offsets: [(names: [String], offset: UInt64)]) throws
        -> Int
    {
        let total = offsets.reduce(0) { $0 + $1.names.count }
        let slices = Self.slices(total)
        var written = 0
        for slice in 0..<slices {
            var keys: [EventKeyEntry] = []
            for (item, e) in offsets.enumerated() {
                for name in Set(e.names) {
                    let h = ShardSpec.fnv1a64(name)
                    if Self.slice(of: h, among: slices) == slice {
                        keys.append(EventKeyEntry(hash: h, item: UInt32(clamping: item), offset: e.offset))
                    }
                }
            }
            keys.sort { ($0.hash, $0.item) < ($1.hash, $1.item) }
            for k in keys {
                try out.append(k, index: written)
                written += 1
            }
        }
        return written
    }

    // MARK: Pieces

    /// How many slices of the hash space `count` entries are sorted in.
    static func slices(_ count: Int) -> Int { max(1, (count + sliceEntries - 1) / sliceEntries) }

    /// The slice a hash falls in: slices are consecutive ranges, so the slices in turn are in hash order.
    static func slice(of hash: UInt64, among slices: Int) -> Int {
        Int(hash.multipliedFullWidth(by: UInt64(slices)).high)
    }

    /// Appends `length u32 | check u32 | JSON` to `f`; where it starts.
    private static func putRecord(_ value: JSONValue, into f: PassFile) throws -> Int64 {
        let at = f.writtenBytes
        let bytes = Array(JSONWriter().string(value).utf8)
        guard bytes.count <= ExplainIndexFormat.maxRecordBytes else {
            throw PassFile.Failure(description: "a record of \(bytes.count) bytes")
        }
        var head: [UInt8] = []
        LittleEndian.put(UInt32(bytes.count), into: &head)
        LittleEndian.put(ExplainIndexFormat.check(bytes, seed: UInt64(at)), into: &head)
        try f.put(head + bytes)
        return at
    }

    private func copy(_ f: PassFile, into out: ExplainIndexOutput) throws {
        try f.rewind()
        var left = f.writtenBytes
        while left > 0 {
            let n = Int(min(left, 1 << 20))
            try out.append(try f.take(n) { Array($0) })
            left -= Int64(n)
        }
    }
}
