import Decompression
import DumpFormats
import IAPBasics
import JSONText
import Ledger
import Reporting

/// A night too big to hold at once, read and screened in parts (docs/commands.md, "Big
/// nights"): each part is the orders of one shard of the night (`ShardSpec`), so the decisions
/// are those of a sharded run's workers, which are one unsharded run's.
///
/// First every part is read (its receipts decoded and verified on every core), what claiming
/// needs of its orders written to a pass file, and the part itself saved to another, so that
/// only one part is ever held. Then each part is read back, claims beside the other parts'
/// staged orders, and writes its reports to a third pass file. Last the parts' reports are
/// joined in the night's order into the one sink. Memory is about one part's, not the night's;
/// the price is reading the dumps once a part.
final class NightPasses {
    let count: Int
    /// The night's, shared by the parts: their ids and spill references stay valid.
    let pool = StringPool()
    let spill: FindingSpill
    private var saved: [PassFile] = []
    private var staged: [PassFile] = []
    /// The staged orders of each part that may take any of several (what links keys), and
    /// with store events those holding a Google purchase token (an event may name it alone).
    private var several: [PassFile] = []
    private(set) var inputs: [InputRecord] = []
    private(set) var orderCount = 0
    /// What the ledger will keep of the night, a part at a time; nil without a ledger.
    private let ledgerRows = PartLedgerRows()
    /// Whether the users' consents are kept: for the ledger, or the refund requests' answers.
    private let keepsConsents: Bool
    private let withEvents: Bool
    /// Each part's facts of the night's refund requests, and the users' refunds (the same in
    /// every part), to be joined once all are screened.
    private var requests: (parts: [[RequestFacts.Found]], refunds: [String: Int]) = ([], [:])

    /// `forLedger`: a ledger will keep the night. `withEvents`: store events are judged.
    init(count: Int, forLedger: Bool, withEvents: Bool) throws {
        self.count = count
        keepsConsents = forLedger || withEvents
        self.withEvents = withEvents
        spill = try FindingSpill()
    }

    /// Part `k`'s orders (1…count).
    func spec(_ k: Int) -> ShardSpec? { ShardSpec(index: k, count: count) }

    /// Reads every part with a loader `make` gives it, stages and saves it, and lets it go.
    func load(
        _ make: (OwnedOrders) throws(InputError) -> NightLoader, orders: [String], receipts: [String],
        screener: NightScreener, progress: (any NightProgress)?
    ) throws(InputError) {
        for k in 1...count {
            guard let spec = spec(k) else { throw InputError(path: "night", reason: "no part \(k) of \(count)") }
            progress?.phase("reading part \(k) of \(count)", count: orderCount)
            let part = try make(.shard(spec))
            try part.load(orders: orders, receipts: receipts, progress: progress)
            if k == 1 { inputs = part.inputs }
            orderCount += part.slots.count
            do {
                if keepsConsents { try ledgerRows.addConsents(of: part) }
                let staging = try PassFile()
                let linking = try PassFile()
                for i in part.slots.indices {
                    guard let s = screener.stagedOrder(i, part) else { continue }
                    try staging.put(s)
                    // What `ShardOrders.gathered` links by, told by the slot (not decoded again).
                    guard s.catalog != ShardOrders.givenBackMarker else { continue }
                    let digest = part.deferred(at: i)?.digest
                    let holdsToken = {
                        digest.map { $0.candidates.contains { $0.purchaseToken != nil } }
                            ?? (part.purchaseToken(at: i) != nil)
                    }
                    if (digest?.candidates.count ?? 0) > 1 || (withEvents && holdsToken()) { try linking.put(s) }
                }
                staged.append(staging)
                several.append(linking)
                let snapshot = try PassFile()
                try part.save(to: snapshot)
                saved.append(snapshot)
            } catch {
                throw InputError(path: "pass file", reason: error.description)
            }
        }
    }

    /// Each user's latest consent tonight, in user order, as one run's `TonightsConsents` gives it.
    var latestConsents: RunRows<RememberedConsent> { ledgerRows.latestConsents }

    /// Screens every part beside the others' staged orders, then hands the reports to `sink`
    /// in the night's order. `restore` reads a saved part back.
    func screen(
        _ screener: NightScreener,
        restore: (PassFile, OwnedOrders) throws(PassFile.Failure) -> NightLoader, into sink: any ReportSink,
        progress: (any NightProgress)?
    ) throws -> NightScreener.Outcome {
        var total = NightScreener.Outcome(newClaims: .none, orders: 0, receipts: 0, claimSeconds: 0, events: nil)
        var parts: [PassFile] = []
        for k in 1...count {
            guard let spec = spec(k) else { throw PassFile.Failure(description: "no part \(k) of \(count)") }
            progress?.phase("claiming and writing the reports of part \(k) of \(count)", count: orderCount)
            let part = try restore(saved[k - 1], .shard(spec))
            saved[k - 1] = try PassFile()  // Read once: its disk space goes now.
            var s = screener
            s.owned = .shard(spec)
            s.isPartOfNight = true
            s.others = try others(of: k, part, s)
            let reports = try PartReports()
            let outcome = try s.screen(part, writer: reports)
            if let f = outcome.claimsFile { ledgerRows.addClaims(f) }
            // Every part judges every event alike; the first keeps what the night reports of them.
            if k == 1, let e = outcome.events { total.events = Self.counted(e) }
            if let r = outcome.requestsInPart {
                requests.parts.append(r.facts)
                if k == 1 { requests.refunds = r.refunds }
            }
            total.orders += outcome.orders
            total.receipts += outcome.receipts
            total.receiptPlatforms.formUnion(outcome.receiptPlatforms)
            total.claimSeconds += outcome.claimSeconds
            parts.append(reports.file)
        }
        (staged, several) = ([], [])
        total.newClaims = ledgerRows.newClaims
        if let asked = screener.events?.requests, !asked.isEmpty {
            let facts = try RequestFacts.joined(
                requests.parts, refunds: requests.refunds, tonight: consents(of:), ledger: screener.ledger)
            total.refundRequests = Array(zip(asked, facts))
        }
        try join(parts, into: sink)
        return total
    }

    /// What the summary and the ledger take of the events' outcome (not the placed reports).
    private static func counted(_ e: EventOutcome) -> EventOutcome {
        var kept = EventOutcome()
        kept.counts = e.counts
        kept.matched = e.matched
        kept.unmatched = e.unmatched
        kept.memory = e.memory
        return kept
    }

    /// The latest consent tonight of each of `users`, over every part.
    private func consents(of users: Set<String>) throws -> [String: RememberedConsent] {
        var found: [String: RememberedConsent] = [:]
        guard !users.isEmpty else { return found }
        try ledgerRows.latestConsents.forEachRow { (c) throws(LedgerError) in
            if users.contains(c.userID) { found[c.userID] = c }
        }
        return found
    }

    /// The other parts' staged orders, as a sharded worker reads the other shards'.
    private func others(of k: Int, _ part: NightLoader, _ screener: NightScreener) throws(PassFile.Failure)
        -> ShardOrders
    {
        let gathered = try ShardOrders.gathered(
            ownKeys: screener.ownKeys(part), tokens: screener.events?.unresolvedTokens ?? [],
            users: screener.ownUsers(part)
        ) {
            (reading, take: (PostgresShardRun.StagedOrder) -> Bool) throws(PassFile.Failure) in
            let linking = if case .linking = reading { true } else { false }
            for j in staged.indices where j != k - 1 {
                let f = linking ? several[j] : staged[j]
                try f.rewind()
                while !f.atEnd {
                    guard take(try f.stagedOrder()) else { return }
                }
            }
        }
        guard let gathered else { throw PassFile.Failure(description: "a part's staged orders cannot be read back") }
        return gathered
    }

    /// The parts' reports, smallest key first (each part's are in order already), each part
    /// read back and formatted a little ahead on a thread of its own.
    private func join(_ parts: [PassFile], into sink: any ReportSink) throws {
        for f in parts { try f.rewind() }
        let streams = parts.map { PartReportStream($0, format: sink.formatter) }
        try KeyedMerge.run(
            parts: streams.count, key: \.key, next: { try streams[$0].next() },
            emit: { try sink.append($0.formatted, of: $0.report, key: $0.key) })
    }
}

/// One part's reports, whole and with their keys, as `merge` reads a shard's: each a JSON
/// line made on every core (the screener's formatting), kept in a pass file.
private final class PartReports: ReportSink {
    let file: PassFile
    private let writer = JSONWriter()
    private var line: [UInt8] = []

    init() throws(PassFile.Failure) { file = try PassFile() }

    var formatter: (@Sendable (OrderReport) -> ReportLines)? { nil }
    var wantsKeys: Bool { true }

    func append(_ formatted: ReportLines?, of r: OrderReport, key: Int64) throws {
        line.removeAll(keepingCapacity: true)
        writer.write(.object(OrderReportLine.line(r, key: key)), to: &line)
        try file.put(line.count)
        try file.put(line)
    }

    func abandon() {}

    static func next(_ f: PassFile) throws(PassFile.Failure) -> (key: Int64, report: OrderReport)? {
        guard !f.atEnd else { return nil }
        let n = try f.count()
        let object = try f.take(n) { try? JSONParser.parse(Array($0), limits: .standard).object }
        guard let object, let r = OrderReportLine.report(object) else {
            throw PassFile.Failure(description: "a part's reports cannot be read back")
        }
        return r
    }
}

/// A part's reports read back, parsed and formatted a small batch ahead (memory stays a part's).
private final class PartReportStream {
    typealias Item = (key: Int64, report: OrderReport, formatted: ReportLines?)
    private let ahead: BatchedReadAhead<Item>

    init(_ file: PassFile, format: (@Sendable (OrderReport) -> ReportLines)?) {
        // Only the reading thread touches the file from now on.
        nonisolated(unsafe) let f = file
        ahead = BatchedReadAhead(depth: 2, batch: 64) { () throws(InputError) -> Item? in
            do throws(PassFile.Failure) {
                return try PartReports.next(f).map { ($0.key, $0.report, format?($0.report)) }
            } catch {
                throw InputError(path: "pass file", reason: error.description)
            }
        }
    }

    func next() throws(InputError) -> Item? { try ahead.next() }
}

extension PassFile {
    func put(_ s: PostgresShardRun.StagedOrder) throws(Failure) {
        try put(s.orderID)
        try put(s.userID)
        try put(s.createdAt)
        try put(s.position)
        try put(s.catalog)
        try put(s.candidates)
    }

    func stagedOrder() throws(Failure) -> PostgresShardRun.StagedOrder {
        let orderID = try string()
        let userID = try string()
        let createdAt = try timestamp()
        return .init(
            orderID: orderID, userID: userID, createdAt: createdAt, position: try int64(), catalog: try optionalInt64(),
            candidates: try string())
    }
}
