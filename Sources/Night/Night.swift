import Consumption
import Decompression
import DumpFormats
import IAPBasics
import Ledger
import ReceiptFormats
import Synchronization

/// One night, as `screen`, `explain` and `backtest` read and screen it: the dumps are read and
/// every receipt decoded and verified on every core while the store-event logs are read
/// beside them; then every credited order claims its purchase on top of the ledger's memory,
/// and each order's report goes to a sink in input order.
///
/// What differs between the commands is named when the night is made: which orders it owns
/// (a sharded run's worker), what it watches (`explain`'s order), a candidate Rules
/// directory judged beside (`backtest`). On every failure the night has cleaned up after
/// itself before it throws: the store-event reading is joined, the sink abandoned, and the
/// ledger is untouched.
package final class Night {
    /// What a night reads.
    package struct Inputs {
        package var orders: [String]
        package var receipts: [String]
        /// `--store-events`: empty for none.
        package var storeEvents: [String]
        /// Worker threads.
        package var jobs: Int
        /// `--allow-empty`: an orders dump with no record is an empty night; otherwise it is
        /// a broken export, which `load` refuses.
        package var allowsEmpty = false
        /// How many parts `screen` reads and screens the night in, one held at a time
        /// (`NightPasses`); 1: the whole night at once.
        package var passes: Int

        package init(orders: [String], receipts: [String], storeEvents: [String], jobs: Int, passes: Int = 1) {
            self.orders = orders
            self.receipts = receipts
            self.storeEvents = storeEvents
            self.jobs = jobs
            self.passes = passes
        }

        /// Every dump, orders first (what the progress line counts the bytes of).
        package var dumps: [String] { orders + receipts }
    }

    package let inputs: Inputs
    package let rules: NightRules
    package let ledger: (any LedgerStore)?
    let loader: NightLoader
    /// A night read in parts: then `loader` holds none of its orders.
    private let passes: NightPasses?
    private let screening: ReceiptScreening
    /// The night's store events, read and verified under `rules`; nil without logs. Set by `load`.
    package private(set) var events: StoreEventNight?
    /// Seconds spent staging this shard's orders and waiting for the others' (a worker).
    package private(set) var shardSeconds = 0.0
    /// Seconds spent writing the explain index (`screen` with an index).
    package private(set) var indexSeconds = 0.0

    /// The worker's part of a sharded run; nil unsharded.
    package let shard: OwnedShard?
    private let candidate: Candidate?
    private var readings: [StoreEventIntake.Reading]
    /// The candidate's events: the baseline's unless it read its own.
    private var candidateEvents: StoreEventNight?

    /// `backtest`'s candidate Rules: its events are read again only when it trusts other keys
    /// or apps than the baseline does.
    private struct Candidate {
        let rules: NightRules
        let reading: StoreEventIntake.Reading?
    }

    /// One order of tonight's dumps as it was read: its row, where it stood among the
    /// records, and the platform of the receipt screening saw.
    package struct Order {
        package var row: OrderRow
        package var position: Int
        package var receiptPlatform: Platform?
    }

    /// How many distinct orders the dumps held (this shard's, for a worker). Set by `load`.
    package var orderCount: Int { passes?.orderCount ?? loader.slots.count }

    /// Every input read, with its digest and records: the dumps, then the store-event logs.
    package var inputRecords: [InputRecord] { (passes?.inputs ?? loader.inputs) + (events?.inputs ?? []) }

    /// How many parts the night was read in (1: at once).
    package var partCount: Int { passes?.count ?? 1 }

    /// The slot of order `orderID` (its latest row), nil when the dumps do not hold it.
    package func slot(of orderID: String) -> Int? {
        loader.slots.indices.last { i in loader.slots.with(i) { $0.pointee.order.orderID == orderID } }
    }

    package func order(at slot: Int) -> Order {
        let stored = loader.slots[slot]
        return Order(
            row: stored.order.row(pool: loader.pool), position: Int(stored.position),
            receiptPlatform: stored.outcome?.receiptPlatform)
    }

    /// `records`: a ledger will keep this night (the events' identities are kept for it).
    /// `shard`: the worker's part of a sharded run. `watching`: the order `explain` asks
    /// about. `candidate`: `backtest`'s Rules, judged beside `rules`. `indexed`: `screen`
    /// leaves an explain index of the night (a night read at once, unsharded; see `explainIndexed`).
    package init(
        _ inputs: Inputs, rules: NightRules, ledger: (any LedgerStore)?, records: Bool = false,
        shard: OwnedShard? = nil, watching: WatchedOrder? = nil, candidate candidateRules: NightRules? = nil,
        indexed: Bool = false
    ) throws(NightFailure) {
        self.inputs = inputs
        self.rules = rules
        self.ledger = ledger
        self.shard = shard
        // The store events are read while the orders are (both on every core); they are
        // judged once tonight's claims are made.
        let logs = inputs.storeEvents
        let reading = logs.isEmpty ? nil : rules.storeEvents(logs, jobs: inputs.jobs, remembering: records)
        readings = reading.map { [$0] } ?? []
        var candidateVerdicts: CandidateVerdicts?
        if let candidateRules {
            let sameTrust = SameTrust.holds(rules.rules, candidateRules.rules)
            let own =
                sameTrust || logs.isEmpty
                ? nil : candidateRules.storeEvents(logs, jobs: inputs.jobs, remembering: false)
            if let own { readings.append(own) }
            candidate = Candidate(rules: candidateRules, reading: own)
            candidateVerdicts = CandidateVerdicts(
                screening: candidateRules.screening.forNight(storeEvents: reading != nil, ledger: ledger != nil),
                reverifies: !sameTrust)
        } else {
            candidate = nil
        }
        // With a ledger, a refund it keeps by token finds tonight's purchase.
        screening = rules.screening.forNight(storeEvents: reading != nil, ledger: ledger != nil)
        let inParts = inputs.passes > 1 && shard == nil && watching == nil && candidateRules == nil
        do {
            if inParts {
                passes = try NightPasses(
                    count: min(inputs.passes, ShardSpec.maxCount), forLedger: ledger != nil, withEvents: reading != nil)
                loader = try NightLoader(emptyFor: screening, limits: .standard)
            } else {
                passes = nil
                let places =
                    indexed && shard == nil && watching == nil && candidateRules == nil ? try DumpPlaces() : nil
                loader = try NightLoader(
                    screening: screening, limits: .standard, jobs: inputs.jobs,
                    owned: shard?.owned ?? .all, watching: watching, candidate: candidateVerdicts, places: places)
            }
        } catch {
            for r in readings { r.abandon() }
            throw NightFailure(.unreadable, "\(error)")
        }
    }

    /// Reads the dumps and waits for the store events.
    package func load(progress: (any NightProgress)? = nil) throws(NightFailure) {
        do {
            if let passes {
                let (screening, jobs) = (self.screening, inputs.jobs)
                try passes.load(
                    { (owned) throws(InputError) in
                        do {
                            return try NightLoader(
                                screening: screening, limits: .standard, jobs: jobs, owned: owned, pool: passes.pool,
                                spill: passes.spill)
                        } catch {
                            throw InputError(path: "night", reason: "\(error)")
                        }
                    }, orders: inputs.orders, receipts: inputs.receipts, screener: makeScreener(rules, events: nil),
                    progress: progress)
            } else {
                try loader.load(orders: inputs.orders, receipts: inputs.receipts, progress: progress)
            }
        } catch {
            for r in readings { r.abandon() }
            throw .input(error)
        }
        if !inputs.allowsEmpty, let empty = emptyOrdersDump {
            for r in readings { r.abandon() }
            throw NightFailure(
                .unreadable,
                "\(empty) holds no order record (an empty file, or a header alone): the export may have broken; "
                    + "--allow-empty says an empty night is expected")
        }
        var failure: NightFailure?
        var read: [StoreEventNight] = []
        for r in readings {
            do { read.append(try r.finish()) } catch { failure = failure ?? error }
        }
        readings = []
        if let failure { throw failure }
        events = read.first
        if let candidate { candidateEvents = candidate.reading == nil ? events : read.last }
    }

    /// The first orders dump that held no record, once loaded (each dump is one `InputRecord`,
    /// the orders dumps first).
    private var emptyOrdersDump: String? {
        let read = passes?.inputs ?? loader.inputs
        return read.prefix(inputs.orders.count).first { $0.records == 0 }?.path
    }

    /// Whether this night can leave an explain index: it was made `indexed` and is read at
    /// once by one process (a night in parts, a sharded run's worker leave none).
    package var explainIndexed: Bool { loader.places != nil }

    /// Hands each order's report to `sink` in input order. A worker of a sharded run first
    /// stages its orders and claims beside the other shards'. `index`: the explain index is
    /// written there too (a night that cannot leave one says so in `index.problem`).
    package func screen(
        into sink: any ReportSink, progress: (any NightProgress)? = nil, index: ExplainIndexOutput? = nil
    ) throws(NightFailure) -> NightScreener.Outcome {
        var screener = makeScreener(rules, events: events)
        guard let index else { return try screen(screener, into: sink, progress: progress) }
        guard let places = loader.places else {
            index.fail(
                passes != nil
                    ? "a night read in \(partCount) parts leaves no explain index"
                    : "a sharded run's worker leaves no explain index")
            return try screen(screener, into: sink, progress: progress)
        }
        screener.keepsSelections = true
        // Written on a thread of its own from the claims, while the reports are built: the
        // claims run on one core and the reports leave part of the other idle, and the index
        // took a core alone for 0.6 s at 10^6 orders once the reports were done. Neither
        // changes what the other reads (the slots, the string pool and the dump places are
        // only read once the night is loaded; the index's files are its own).
        let writer = IndexWriting()
        screener.afterClaims = { [loader, events, rules, ledger] explained, requests in
            nonisolated(unsafe) let job = ExplainIndexWriter(
                loader: loader, places: places, claims: explained, events: events, requests: requests ?? [],
                consumption: rules.rules.settings.consumption, ledgerKeepsRun: ledger != nil)
            nonisolated(unsafe) let index = index
            let seconds = writer.seconds
            writer.thread = JoinedThread {
                let started = SystemClock.monotonicSeconds()
                defer { seconds.set(SystemClock.monotonicSeconds() - started) }
                do { try job.write(to: index) } catch { index.fail("\(error)") }
            }
        }
        let outcome: NightScreener.Outcome
        do {
            outcome = try screen(screener, into: sink, progress: progress)
        } catch {
            writer.thread?.join()
            index.fail("\(error.description)")
            throw error
        }
        guard let thread = writer.thread else {
            index.fail("the claims were not kept for the explain index")
            return outcome
        }
        thread.join()
        indexSeconds = writer.seconds.get()
        return outcome
    }

    /// The explain index's thread, started once the claims are made, and how long it took.
    private final class IndexWriting {
        var thread: JoinedThread?
        let seconds = Seconds()

        /// Set on the index's thread, read once it has been joined.
        final class Seconds: Sendable {
            private let value = Mutex(0.0)
            func set(_ s: Double) { value.withLock { $0 = s } }
            func get() -> Double { value.withLock { $0 } }
        }
    }

    private func screen(_ screener: NightScreener, into sink: any ReportSink, progress: (any NightProgress)?)
        throws(NightFailure) -> NightScreener.Outcome
    {
        var screener = screener
        if let passes {
            let screening = self.screening
            do {
                return try passes.screen(
                    screener,
                    restore: { (f, owned) throws(PassFile.Failure) in
                        try NightLoader(
                            restoring: f, screening: screening, limits: .standard, owned: owned, pool: passes.pool,
                            spill: passes.spill)
                    }, into: sink, progress: progress)
            } catch {
                sink.abandon()
                throw NightFailure(.unreadable, "\(error)")
            }
        }
        let claiming = "claiming transactions and writing the reports"
        progress?.phase(claiming, count: loader.slots.count)
        if let shard {
            let staging = SystemClock.monotonicSeconds()
            defer { shardSeconds = SystemClock.monotonicSeconds() - staging }
            // Every shard's orders claim together: staged, then the others' read back.
            do {
                screener.others = try shard.exchange(loader, screener, progress: progress)
            } catch {
                sink.abandon()
                throw NightFailure(.ledger(error), "\(error)")
            }
            screener.owned = shard.owned
            progress?.phase(claiming, count: loader.slots.count)
        }
        do {
            return try screener.screen(loader, writer: sink)
        } catch {
            sink.abandon()
            throw NightFailure(.unreadable, "\(error)")
        }
    }

    /// `backtest`: the same night, judged again under the candidate's Rules (after `screen`
    /// under the baseline's).
    package func screenUnderCandidate(into sink: any ReportSink) throws(NightFailure) -> NightScreener.Outcome {
        guard let candidate, loader.useCandidateVerdicts() else {
            sink.abandon()
            throw NightFailure(.unreadable, "the candidate's verdicts were not kept beside the baseline's")
        }
        do {
            return try makeScreener(candidate.rules, events: candidateEvents).screen(loader, writer: sink)
        } catch {
            sink.abandon()
            throw NightFailure(.unreadable, "\(error)")
        }
    }

    /// `explain`: the night's claims, keeping what `slot` got.
    package func claims(watching slot: Int32) throws(NightFailure) -> NightScreener.Claims {
        do {
            return try makeScreener(rules, events: events).makeClaims(loader, watch: slot)
        } catch {
            throw NightFailure(.unreadable, "\(error)")
        }
    }

    /// The night's refund requests (after `load`), each with what tonight's dumps and the
    /// ledger know of its transaction, in the order the logs hold them.
    package func refundRequests() throws(NightFailure) -> [(request: ConsumptionRequest, facts: ConsumptionFacts)] {
        guard let requests = events?.requests, !requests.isEmpty else { return [] }
        let claims: NightScreener.Claims
        do {
            claims = try makeScreener(rules, events: events).makeClaims(loader)
        } catch {
            throw NightFailure(.unreadable, "\(error)")
        }
        return try refundRequests(using: claims)
    }

    /// The same, from claims already made (`explain`'s).
    package func refundRequests(using claims: NightScreener.Claims) throws(NightFailure) -> [(
        request: ConsumptionRequest, facts: ConsumptionFacts
    )] {
        guard let requests = events?.requests, !requests.isEmpty else { return [] }
        do {
            let facts = try RequestFacts.gather(
                requests, night: loader, claims: claims, rules: rules.rules, ledger: ledger)
            return Array(zip(requests, facts))
        } catch {
            throw NightFailure(.ledger(error), "\(error)")
        }
    }

    /// Each user's latest consent as this night's dumps (this shard's orders) state it, for
    /// the ledger to keep: the users of no order of tonight's with a `consent` are not in it.
    package func consents() -> RunRows<RememberedConsent> {
        passes?.latestConsents ?? .inUserOrder(Array(TonightsConsents.latest(in: loader).values))
    }

    /// The claims and reports of this night under `r`, with the store events read for it.
    private func makeScreener(_ r: NightRules, events: StoreEventNight?) -> NightScreener {
        NightScreener(rules: r.rules, ledger: ledger, resolver: r.resolver, evaluator: r.evaluator, events: events)
    }

    /// Gives the ledger the night: a worker hands its share to the run, which the last
    /// worker to finish records.
    package func record(_ record: RunRecord, commitIf: () -> Bool = { true }) throws(NightFailure) {
        guard let ledger else { return }
        do {
            if let shard {
                guard commitIf() else { return }
                _ = try shard.run.finish(record)
            } else {
                try ledger.record(record, commitIf: commitIf)
            }
        } catch {
            // Exit 3 whatever the ledger said: the run is over and its reports not in place.
            throw NightFailure(.unreadable, "the ledger could not be updated: \(error)")
        }
    }
}
