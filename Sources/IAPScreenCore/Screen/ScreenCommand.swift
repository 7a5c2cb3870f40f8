import Decompression
import Foundation
import IAPBasics
import JSONText
import Ledger
import ReceiptFormats
import ReceiptVerification
import Reporting
import Screening
import StoreCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen screen`: the nightly job.
enum ScreenCommand {
    static let spec = CommandSpec(
        name: "screen",
        summary: "Screen a night's orders and receipts for fraud and write the flagged-order reports.",
        options: ScreenSetup.inputOptions + [
            StoreEventIntake.option,
            OptionSpec("--out", .one, valueName: "DIR", help: "Where the reports go (default ./iapscreen-report)."),
            OptionSpec(
                "--fail-on", .one, help: "Exit 1 when a finding reaches this severity.",
                choices: Severity.allCases.map(\.name)),
            OptionSpec("--quiet", .flag, help: "Print nothing, not even the summary."),
            MetricsFile.option,
        ] + ShardOptions.options,
        details: """
            Writes findings.jsonl, flagged.csv, summary.json and report.html into --out, each under
            a temporary name first. The ledger remembers which order first took each store
            transaction; it is updated after the reports are written.
            Exit status: 0 done; 1 a finding at or above --fail-on; 2 bad usage or Rules;
            3 an input could not be read; 4 the ledger is in use by another run.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let started = SystemClock.now()
        let startedMonotonic = SystemClock.monotonicSeconds()
        var figures: RunMetrics.Figures?
        let status = screen(args, io: io, started: started, startedMonotonic: startedMonotonic, figures: &figures)
        // Every run that reached its end or failed on an input or the ledger leaves its
        // figures; bad usage (2) never started one.
        if let path = args.one("--metrics"), status != .usage {
            let finished = SystemClock.now()
            let done = status == .ok || status == .findingsAtThreshold
            MetricsFile.write(
                RunMetrics(
                    finishedAt: finished, durationSeconds: SystemClock.monotonicSeconds() - startedMonotonic,
                    exitStatus: status.rawValue, lastSuccess: done ? finished : nil,
                    figures: done ? figures : nil),
                to: path, command: spec.name, io: io)
        }
        return status
    }

    /// The run itself; `figures` is set when it is done.
    private static func screen(
        _ args: ParsedArguments, io: Console, started: Timestamp, startedMonotonic: Double,
        figures: inout RunMetrics.Figures?
    ) -> ExitStatus {
        let quiet = args.has("--quiet")
        let failOn = args.one("--fail-on").flatMap(Severity.init(name:))
        let outDir = args.one("--out") ?? "iapscreen-report"
        let setup: ScreenSetup
        switch ScreenSetup.make(args, command: spec, io: io) {
        case .success(let s): setup = s
        case .failure(let status): return status.status
        }
        let orders = setup.orders
        let receipts = setup.receipts
        let jobs = setup.jobs
        let rules = setup.rules
        let sharding: ShardOptions?
        switch ShardOptions.parse(args, ledger: setup.ledgerSpec, command: spec, io: io) {
        case .success(let s): sharding = s
        case .failure(let stop): return stop.status
        }

        // One run per ledger at a time: held until the run ends. A sharded run's worker joins
        // its run instead.
        let held: LockedLedger?
        let shardRun: PostgresShardRun?
        if let sharding, case .postgres(let uri, _) = setup.ledgerSpec {
            switch sharding.join(uri, io: io) {
            case .success(let (ledger, run)):
                held = LockedLedger(lock: nil, ledger: ledger)
                shardRun = run
            case .failure(let refusal): return refusal.status
            }
        } else {
            switch LockedLedger.open(setup.ledgerSpec, command: spec.name, consequence: "nothing written", io: io) {
            case .success(let h): held = h
            case .failure(let refusal): return refusal.status
            }
            shardRun = nil
        }
        defer { withExtendedLifetime((held, shardRun)) {} }
        let ledger = held?.ledger

        let resolver = setup.resolver
        let evaluator = setup.evaluator
        let screening: ReceiptScreening
        // The store events are read while the orders are (both on every core); they are
        // judged once tonight's claims are made.
        let reading: StoreEventIntake.Reading?
        switch StoreEventIntake.start(
            args, setup: setup, command: spec.name, remembering: ledger != nil, io: io,
            inBackground: true)
        {
        case .success(let r): reading = r
        case .failure(let stop): return stop.status
        }
        screening = setup.screening.forNight(storeEvents: reading != nil, ledger: ledger != nil)
        let loader: NightLoader
        do {
            loader = try NightLoader(screening: screening, limits: .standard, jobs: jobs, shard: sharding?.shard)
        } catch {
            reading?.abandon()
            io.error("iapscreen screen: \(error)")
            return .unreadableInput
        }
        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: quiet), console: io,
            totalBytes: ProgressLine.totalSize(of: orders + receipts))
        do {
            try loader.load(orders: orders, receipts: receipts, progress: progress)
        } catch {
            progress.clear()
            reading?.abandon()
            io.error("iapscreen screen: cannot read \(error.path): \(error.reason); nothing written, ledger unchanged")
            return .unreadableInput
        }
        let events: StoreEventNight?
        switch reading?.finish(command: spec.name, io: io) ?? .success(nil) {
        case .success(let e): events = e
        case .failure(let stop):
            progress.clear()
            return stop.status
        }
        let loaded = SystemClock.monotonicSeconds()
        progress.phase("claiming transactions and writing the reports", count: loader.slots.count)
        let outcome: NightScreener.Outcome
        let writer: ReportWriter
        do {
            writer = try ReportWriter(
                directory: outDir, keepsReported: ledger != nil, keepsShardReports: sharding != nil)
        } catch {
            progress.clear()
            io.error("iapscreen screen: cannot write the reports in \(outDir): \(error); ledger unchanged")
            return .unreadableInput
        }
        var screener = NightScreener(
            rules: rules, ledger: ledger, resolver: resolver, evaluator: evaluator, events: events)
        var shardSeconds = 0.0
        if let shardRun, let sharding {
            let staging = SystemClock.monotonicSeconds()
            defer { shardSeconds = SystemClock.monotonicSeconds() - staging }
            // Every shard's orders claim together: staged, then the others' read back.
            do {
                try shardRun.stage(screener.stagedOrders(loader))
                progress.phase("waiting for the other shards of run \(sharding.runID)", count: loader.slots.count)
                try shardRun.waitForAll(timeout: sharding.timeout)
                guard let others = ShardOrders(staged: try shardRun.othersOrders()) else {
                    throw LedgerError(
                        "run \(sharding.runID): another shard's staged orders cannot be read", code: .postgres)
                }
                screener.shard = sharding.shard
                screener.others = others
            } catch {
                progress.clear()
                writer.abandon()
                io.error("iapscreen screen: \(error); nothing written, ledger unchanged")
                return (error as? LedgerError).map(LockedLedger.status(of:)) ?? .unreadableInput
            }
            progress.phase("claiming transactions and writing the reports", count: loader.slots.count)
        }
        do {
            outcome = try screener.screen(loader, writer: writer)
        } catch {
            progress.clear()
            writer.abandon()
            io.error("iapscreen screen: \(error); nothing written, ledger unchanged")
            return .unreadableInput
        }
        progress.clear()
        let screened = SystemClock.monotonicSeconds()

        // The verdict and the summary.
        var status = ExitStatus.ok
        if let failOn, let worst = writer.tally.worst, worst >= failOn { status = .findingsAtThreshold }
        let elapsed = max(SystemClock.monotonicSeconds() - startedMonotonic, 1e-6)
        var summary = Summaries.make(
            tally: writer.tally, orders: outcome.orders, receipts: outcome.receipts,
            inputs: loader.inputs + (events?.inputs ?? []), rules: rules, started: started,
            finished: SystemClock.now(), status: status, rate: Double(outcome.orders) / elapsed)
        summary.storeEvents = events == nil ? nil : outcome.events.map(Summaries.storeEvents)
        summary.shard = sharding?.shard.description
        summary.runID = sharding?.runID
        do {
            let legend = RuleLegend(rules.settings)
            try writer.prepare(
                summary: summary, legend: legend,
                shardRun: sharding.map { ShardReportLines.run($0, legend: legend, summary: summary) })
        } catch {
            writer.abandon()
            io.error("iapscreen screen: cannot write the reports in \(outDir): \(error); ledger unchanged")
            return .unreadableInput
        }
        // The reports wait under their temporary names until the ledger has the run: a ledger
        // that fails (a server gone) leaves neither new reports nor a half-updated ledger.
        if let ledger {
            do {
                let memory = outcome.events?.memory ?? EventMemory()
                let record = RunRecord(
                    startedAt: started, finishedAt: summary.finishedAt, orders: outcome.orders,
                    flagged: summary.flagged, newClaims: outcome.newClaims, reported: writer.reported,
                    refunds: memory.refunds, reversals: memory.reversals, events: memory.events)
                if let shardRun { try shardRun.finish(record) } else { try ledger.record(record) }
            } catch {
                writer.abandon()
                io.error(
                    "iapscreen screen: the ledger could not be updated: \(error); nothing written, ledger unchanged")
                return .unreadableInput
            }
        }
        do {
            try writer.publish()
        } catch {
            writer.abandon()
            let kept = ledger == nil ? "" : "; the ledger has the run, so a rerun marks its findings seen"
            io.error("iapscreen screen: cannot put the reports in place in \(outDir): \(error)\(kept)")
            return .unreadableInput
        }
        if ProcessInfo.processInfo.environment["IAPSCREEN_TIMINGS"] != nil {
            let now = SystemClock.monotonicSeconds()
            let staged = shardRun == nil ? "" : String(format: "shard staging and waiting %.2f s, ", shardSeconds)
            io.error(
                String(format: "timings: load %.2f s, ", loaded - startedMonotonic) + staged
                    + String(
                        format: "claims %.2f s, reports %.2f s, summary and ledger %.2f s; %d ES256 key tables",
                        outcome.claimSeconds,
                        screened - loaded - shardSeconds - outcome.claimSeconds, now - screened,
                        PublicKey.es256TablesBuilt))
        }
        if !quiet { io.error(Summaries.text(summary, outDir: outDir)) }
        figures = RunMetrics.Figures(
            summary: summary, findings: writer.tally.findingsByRuleAndSeverity,
            storeEvents: summary.storeEvents?.byType.map { (type: $0.0, count: $0.1) } ?? [])
        return status
    }
}
