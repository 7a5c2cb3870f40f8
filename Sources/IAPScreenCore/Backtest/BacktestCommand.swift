import Foundation
import IAPBasics
import JSONText
import Ledger
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
            StoreEventIntake.option,
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
        help: "The candidate Rules directory (the change to try). Required.")

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let started = SystemClock.monotonicSeconds()
        let quiet = args.has("--quiet")
        let outDir = args.one("--out") ?? "iapscreen-backtest"
        guard let candidatePath = args.one("--rules") else {
            io.usageError(command: spec, "--rules is required: the candidate Rules directory to try")
            return .usage
        }
        let baselinePath = args.one("--baseline") ?? "Rules"
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

        // The store events are read once when both directories trust the same keys and apps.
        let sameTrust = BacktestTrust.same(baselineRules, candidateRules)
        let readings: (StoreEventIntake.Reading?, StoreEventIntake.Reading?)
        switch startEvents(args, baseline, sameTrust ? nil : candidate, io: io) {
        case .success(let r): readings = r
        case .failure(let stop): return stop.status
        }
        func abandon() {
            readings.0?.abandon()
            readings.1?.abandon()
        }
        // As screen sets them: with a ledger, a refund it keeps by token finds tonight's purchase.
        let baselineScreening = baseline.screening.forNight(storeEvents: readings.0 != nil, ledger: ledger != nil)
        let candidateScreening = candidate.screening.forNight(storeEvents: readings.0 != nil, ledger: ledger != nil)
        let loader: NightLoader
        do {
            loader = try NightLoader(
                screening: baselineScreening, limits: .standard, jobs: baseline.jobs,
                twin: candidateScreening, twinReverifies: !sameTrust)
        } catch {
            abandon()
            io.error("iapscreen backtest: \(error)")
            return .unreadableInput
        }
        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: quiet), console: io,
            totalBytes: ProgressLine.totalSize(of: baseline.orders + baseline.receipts))
        do {
            try loader.load(orders: baseline.orders, receipts: baseline.receipts, progress: progress)
        } catch {
            progress.clear()
            abandon()
            io.error("iapscreen backtest: cannot read \(error.path): \(error.reason); \(notDone)")
            return .unreadableInput
        }
        let events: (StoreEventNight?, StoreEventNight?)
        switch (
            readings.0?.finish(command: spec.name, io: io) ?? .success(nil),
            readings.1?.finish(command: spec.name, io: io) ?? .success(nil)
        ) {
        case (.success(let b), .success(let c)): events = (b, c ?? b)
        case (.failure(let stop), _), (_, .failure(let stop)):
            progress.clear()
            return stop.status
        }

        let loaded = SystemClock.monotonicSeconds()
        let loadedRSS = peakRSSMiB()
        progress.phase("claiming transactions under both Rules directories", count: loader.slots.count)
        let texts = BacktestTexts()
        let baselineLane = BacktestLane(texts: texts)
        let candidateLane = BacktestLane(texts: texts)
        let orders: Int
        var lanesDone = loaded
        do {
            let screened = try NightScreener(
                rules: baselineRules, ledger: ledger, resolver: baseline.resolver,
                evaluator: baseline.evaluator, events: events.0
            )
            .screen(loader, writer: baselineLane)
            // The same night, now with the candidate's verdicts in the slots.
            guard loader.useTwinVerdicts() else { throw BacktestFiles.Failure.noCandidateVerdicts }
            _ = try NightScreener(
                rules: candidateRules, ledger: ledger, resolver: candidate.resolver,
                evaluator: candidate.evaluator, events: events.1
            )
            .screen(loader, writer: candidateLane)
            orders = screened.orders
            lanesDone = SystemClock.monotonicSeconds()
        } catch {
            progress.clear()
            io.error("iapscreen backtest: \(error); \(notDone)")
            return .unreadableInput
        }
        progress.clear()
        let (rows, totals) = BacktestDiff.compare(baseline: baselineLane, candidate: candidateLane, orders: orders)
        do {
            try BacktestFiles.write(
                rows: rows, totals: totals, baseline: baselinePath, candidate: candidatePath, to: outDir)
        } catch {
            io.error("iapscreen backtest: cannot write the backtest in \(outDir): \(error)")
            return .unreadableInput
        }
        if ProcessInfo.processInfo.environment["IAPSCREEN_TIMINGS"] != nil {
            io.error(
                String(
                    format:
                        "timings: load %.2f s, both Rules' claims and reports %.2f s, comparing and writing %.2f s; "
                        + "peak RSS %d MiB after the load, %d MiB at the end",
                    loaded - started, lanesDone - loaded, SystemClock.monotonicSeconds() - lanesDone, loadedRSS,
                    peakRSSMiB())
            )
        }
        if !quiet {
            io.error(
                "iapscreen backtest: \(orders) orders under \(candidatePath) against \(baselinePath): \(totals.summaryLine); "
                    + "\(rows.count) changed orders in \(outDir)/backtest.csv")
        }
        return .ok
    }

    /// The baseline's events reading, and the candidate's when it trusts other keys or apps.
    private static func startEvents(
        _ args: ParsedArguments, _ baseline: ScreenSetup, _ candidate: ScreenSetup?,
        io: Console
    ) -> Result<(StoreEventIntake.Reading?, StoreEventIntake.Reading?), ScreenSetup.Stop> {
        let first: StoreEventIntake.Reading?
        switch StoreEventIntake.start(
            args, setup: baseline, command: spec.name, remembering: false, io: io, inBackground: true)
        {
        case .success(let r): first = r
        case .failure(let stop): return .failure(stop)
        }
        guard let candidate else { return .success((first, nil)) }
        switch StoreEventIntake.start(
            args, setup: candidate, command: spec.name, remembering: false, io: io, inBackground: true)
        {
        case .success(let r): return .success((first, r))
        case .failure(let stop):
            first?.abandon()
            return .failure(stop)
        }
    }
}

/// Whether two Rules directories verify alike: the same Apple anchors, Google keys and apps
/// (then each receipt and event is verified once for both).
enum BacktestTrust {
    static func same(_ a: RulesDirectory, _ b: RulesDirectory) -> Bool {
        guard a.apps == b.apps, a.hasAppsFile == b.hasAppsFile, Set(a.googleKeyFiles.keys) == Set(b.googleKeyFiles.keys)
        else {
            return false
        }
        func contents(_ paths: [String]) -> [Data]? {
            let read = paths.compactMap { FileManager.default.contents(atPath: $0) }
            return read.count == paths.count ? read.sorted { $0.lexicographicallyPrecedes($1) } : nil
        }
        guard let appleA = contents(a.appleTrustFiles), let appleB = contents(b.appleTrustFiles), appleA == appleB
        else { return false }
        for (package, path) in a.googleKeyFiles {
            guard let other = b.googleKeyFiles[package], let x = FileManager.default.contents(atPath: path),
                let y = FileManager.default.contents(atPath: other), x == y
            else { return false }
        }
        return true
    }
}

/// backtest.csv, backtest.json and backtest.html, each under a temporary name until all
/// three are written.
enum BacktestFiles {
    enum Failure: Error, CustomStringConvertible {
        case noCandidateVerdicts
        var description: String { "the candidate's verdicts were not kept beside the baseline's" }
    }

    static let pageHashes = ReportHTML.Hashes(
        script: ReportWriter.sha256Base64(BacktestHTML.script),
        style: ReportWriter.sha256Base64(BacktestHTML.style))

    static func write(
        rows: [BacktestRow], totals: BacktestTotals, baseline: String, candidate: String, to directory: String
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let csv = try TempFile(in: directory, for: "backtest.csv")
        let json = try TempFile(in: directory, for: "backtest.json")
        let html = try TempFile(in: directory, for: "backtest.html")
        let files = [csv, json, html]
        do {
            var chunk = Array(BacktestRow.csvHeader.utf8)
            for row in rows {
                chunk += Array(row.csvRow.utf8)
                if chunk.count > 1 << 20 {
                    try csv.write(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try csv.write(chunk)
            let totalsJSON = totals.json(version: IAPScreen.version, baseline: baseline, candidate: candidate)
            try json.write(Array((JSONWriter().string(.object(totalsJSON)) + "\n").utf8))
            try BacktestHTML.write(
                totals: totals, baseline: baseline, candidate: candidate, rows: rows, hashes: pageHashes,
                emit: html.write)
            for f in files { try f.sync() }
            for f in files { try f.publish() }
        } catch {
            for f in files { f.discard() }
            throw error
        }
    }
}

/// The process's peak resident set so far (IAPSCREEN_TIMINGS).
private func peakRSSMiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss / 1024
}
