import Foundation
import IAPBasics
import Ledger
import Night
import Reporting
import Screening
import StoreCrypto

/// `iapscreen screen`: the nightly job.
enum ScreenCommand {
    static let spec = CommandSpec(
        name: "screen",
        summary: "Screen a night's orders and receipts for fraud and write the flagged-order reports.",
        options: ScreenSetup.inputOptions + [
            ScreenSetup.storeEventsOption,
            OptionSpec("--out", .one, valueName: "DIR", help: "Where the reports go (default ./iapscreen-report)."),
            OptionSpec(
                "--fail-on", .one, help: "Exit 1 when a finding reaches this severity.",
                choices: Severity.allCases.map(\.name)),
            OptionSpec("--quiet", .flag, help: "Print nothing, not even the summary."),
            MetricsFile.option,
            RequestAnswers.nowOption,
        ] + ShardOptions.options,
        details: """
            Writes findings.jsonl, flagged.csv, summary.json and report.html into --out, each under
            a temporary name first, and consumption.jsonl when the store-event logs hold refund
            requests (see iapscreen consumption). The ledger remembers which order first took each
            store transaction; it is updated after the reports are written.
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
        guard let now = RequestAnswers.now(args, command: spec, io: io, otherwise: started) else { return .usage }
        let outDir = args.one("--out") ?? "iapscreen-report"
        let setup: ScreenSetup
        let sharding: ShardOptions?
        switch ScreenSetup.make(args, command: spec, io: io).flatMap({ s in
            ShardOptions.parse(args, ledger: s.ledgerSpec, command: spec, io: io).map { (s, $0) }
        }) {
        case .success(let (s, o)): (setup, sharding) = (s, o)
        case .failure(let stop): return stop.status
        }
        guard let (inputs, parts) = NightParts.split(setup.inputs, sharded: sharding != nil, command: spec, io: io)
        else { return .usage }
        let held: (ledger: LockedLedger?, shard: OwnedShard?)
        switch ShardOptions.hold(setup.ledgerSpec, sharding, command: spec, io: io) {
        case .success(let h): held = h
        case .failure(let refusal): return refusal.status
        }
        defer { withExtendedLifetime(held) {} }
        let ledger = held.ledger?.ledger
        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: quiet), console: io,
            totalBytes: ProgressLine.totalSize(of: inputs.dumps) * parts)
        let consequence = "nothing written, ledger unchanged"
        let night: Night
        let writer: ReportWriter
        let outcome: NightScreener.Outcome
        var loaded = (at: startedMonotonic, peakRSSMiB: 0)
        let stamp = held.shard == nil ? ExplainIndexStamps.make(setup) : nil
        let index: ExplainIndexOutput?
        do {
            night = try Night(
                inputs, rules: setup.rules, ledger: ledger, records: ledger != nil, shard: held.shard,
                indexed: stamp != nil)
            try night.load(progress: progress)
            loaded = (SystemClock.monotonicSeconds(), ProcessMemory.peakRSSMiB())
            ProcessMemory.nightLoaded()
            do {
                writer = try ReportWriter(
                    directory: outDir, keepsReported: ledger != nil, keepsShardReports: held.shard != nil)
                index = try stamp.map { try ExplainIndexOutput(directory: outDir, stamp: $0) }
            } catch {
                progress.clear()
                io.error("iapscreen screen: cannot write the reports in \(outDir): \(error); ledger unchanged")
                return .unreadableInput
            }
            outcome = try night.screen(into: writer, progress: progress, index: index)
        } catch {
            progress.clear()
            return io.nightFailed(error, command: spec.name, consequence: consequence)
        }
        progress.clear()
        let screened = SystemClock.monotonicSeconds()
        let failOn = args.one("--fail-on").flatMap(Severity.init(name:))
        var status = ExitStatus.ok
        if let failOn, let worst = writer.tally.worst, worst >= failOn { status = .findingsAtThreshold }
        let elapsed = max(SystemClock.monotonicSeconds() - startedMonotonic, 1e-6)
        var summary = ScreenOutputs.summary(
            night, outcome, writer: writer, shard: held.shard, started: started, status: status,
            rate: Double(outcome.orders) / elapsed)
        let answers = ScreenOutputs.answers(night, outcome, now: now)
        summary.consumptionRequests = answers.map(\.figures)
        do {
            try answers.map { a in try writer.attach(ConsumptionOutputs.consumptionFile, a.lines) }
        } catch {
            writer.abandon()
            io.error("iapscreen screen: cannot write the reports in \(outDir): \(error); ledger unchanged")
            return .unreadableInput
        }
        if let stop = ScreenOutputs.publish(
            night, outcome, summary: summary, writer: writer, index: index, outDir: outDir, io: io)
        {
            return stop
        }
        if ProcessInfo.processInfo.environment["IAPSCREEN_TIMINGS"] != nil {
            io.error(
                ScreenOutputs.timings(
                    night, outcome, start: startedMonotonic, loaded: loaded, screened: screened,
                    sharded: held.shard != nil))
        }
        Summaries.say(summary, setup: setup, outcome: outcome, outDir: outDir, index: index, quiet: quiet, io: io)
        figures = RunMetrics.Figures(
            summary: summary, findings: writer.tally.findingsByRuleAndSeverity,
            storeEvents: summary.storeEvents?.byType.map { (type: $0.0, count: $0.1) } ?? [])
        return status
    }

}
