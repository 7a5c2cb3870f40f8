import Foundation
import IAPBasics
import JSONText
import Ledger
import Night
import Reporting
import Screening

/// `iapscreen backtest`: what a Rules change would have done to these nights (docs/backtest.md).
/// The dumps are read once and every receipt decoded and verified once; each order is then
/// judged under both Rules directories, and the two are claimed and reported as two
/// `screen` runs on the same ledger would be. The ledger is only read.
enum BacktestCommand {
    static let spec = CommandSpec(
        name: "backtest",
        summary:
            "Screen the input under a candidate Rules directory and the baseline, and report the orders whose findings change.",
        options: ScreenSetup.inputOptions.map { $0.name == "--rules" ? candidateOption : $0 } + [
            OptionSpec("--baseline", .one, valueName: "DIR", help: "The Rules directory in use now (default ./Rules)."),
            ScreenSetup.storeEventsOption,
            OptionSpec(
                "--out", .one, valueName: "DIR",
                help: "Where backtest.csv, .json and .html go (default ./iapscreen-backtest)."),
            OptionSpec("--quiet", .flag, help: "Print nothing, not even the summary."),
        ],
        details: """
            Writes backtest.csv (one row per order whose findings differ), backtest.json (per rule,
            and the changed orders against reviewers' verdicts and refunds) and backtest.html into
            --out, each under a temporary name first. The ledger is read, never written. An order
            counts as flagged here when it has a finding that is not exempted, whatever its review:
            the verdicts are what a change is judged by.
            Exit status: 0 done; 2 bad usage or a bad Rules directory (either); 3 an input or the
            ledger could not be read.
            """)

    private static let candidateOption = OptionSpec(
        "--rules", .one, valueName: "DIR",
        help: "The candidate Rules directory (the change to try).", required: true)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let started = SystemClock.monotonicSeconds()
        let quiet = args.has("--quiet")
        let outDir = args.one("--out") ?? "iapscreen-backtest"
        guard let candidatePath = args.one("--rules") else {
            io.usageError(command: spec, "--rules is required: the candidate Rules directory to try")
            return .usage
        }
        let baselinePath = args.one("--baseline") ?? "Rules"
        if args.one("--baseline") == nil, !quiet {
            // The default is easy to miss: say which directory the change is judged against.
            let cwd = FileManager.default.currentDirectoryPath
            io.error("iapscreen backtest: no --baseline given: the baseline is ./Rules (\(cwd)/Rules)")
        }
        // Both checked, every problem of each said, before anything is read or written.
        let notDone = "nothing written"
        let baselineRules = io.loadRules(at: baselinePath, which: "baseline", command: spec.name, notDone: notDone)
        let candidateRules = io.loadRules(at: candidatePath, which: "candidate", command: spec.name, notDone: notDone)
        guard let baselineRules, let candidateRules else { return .usage }
        let baseline: ScreenSetup
        let candidate: ScreenSetup
        switch (
            ScreenSetup.make(args, command: spec, io: io, rules: baselineRules),
            ScreenSetup.make(args, command: spec, io: io, rules: candidateRules)
        ) {
        case (.success(let b), .success(let c)): (baseline, candidate) = (b, c)
        case (.failure(let stop), _), (_, .failure(let stop)): return stop.status
        }
        let ledger: (any LedgerStore)?
        switch LedgerReader.open(baseline.ledgerSpec, command: spec.name, consequence: notDone, io: io) {
        case .success(let l): ledger = l
        case .failure(let refusal): return refusal.status
        }

        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: quiet), console: io,
            totalBytes: ProgressLine.totalSize(of: baseline.inputs.dumps))
        let texts = BacktestTexts()
        let lanes = (baseline: BacktestLane(texts: texts), candidate: BacktestLane(texts: texts))
        var times = BacktestTimes(started: started)
        let orders: Int
        do {
            // Each receipt is decoded and verified once and judged under both Rules.
            let night = try Night(baseline.inputs, rules: baseline.rules, ledger: ledger, candidate: candidate.rules)
            try night.load(progress: progress)
            times.loaded()
            progress.phase("claiming transactions under both Rules directories", count: night.orderCount)
            orders = try night.screen(into: lanes.baseline).orders
            _ = try night.screenUnderCandidate(into: lanes.candidate)
            times.lanesDone()
        } catch {
            progress.clear()
            return io.nightFailed(error, command: spec.name, consequence: notDone)
        }
        progress.clear()
        let (rows, totals) = BacktestDiff.compare(baseline: lanes.baseline, candidate: lanes.candidate, orders: orders)
        do {
            try BacktestFiles.write(
                rows: rows, totals: totals, baseline: baselinePath, candidate: candidatePath, to: outDir)
        } catch {
            io.error("iapscreen backtest: cannot write the backtest in \(outDir): \(error)")
            return .unreadableInput
        }
        if ProcessInfo.processInfo.environment["IAPSCREEN_TIMINGS"] != nil { io.error(times.line) }
        if !quiet {
            io.error(
                "iapscreen backtest: \(orders) orders under \(candidatePath) against \(baselinePath): \(totals.summaryLine); "
                    + "\(rows.count) changed orders in \(outDir)/backtest.csv")
        }
        return .ok
    }
}
