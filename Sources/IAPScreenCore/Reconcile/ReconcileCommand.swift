import Foundation
import IAPBasics
import Night
import ReceiptVerification
import Reconciliation
import Screening

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen reconcile`: finance's side. Did every order we credited get paid, and did
/// every payment the stores took get its order?
enum ReconcileCommand {
    static let spec = CommandSpec(
        name: "reconcile",
        summary: "Reconcile our credited orders against the stores' own sales and earnings reports.",
        options: [
            OptionSpec("--orders", .many, valueName: "PATH", help: "Orders dumps, as for screen.", required: true),
            OptionSpec(
                "--receipts", .many, valueName: "PATH", help: "Receipts dumps (order_id, receipt, received_at)."),
            OptionSpec(
                "--store-report", .many, valueName: "PATH",
                help: "Google Play sales/earnings reports (.zip, .csv) and Apple Sales Summary reports (.txt.gz).",
                required: true),
            ScreenSetup.storeEventsOption,
            OptionSpec(
                "--rules", .one, valueName: "DIR", help: "Rules directory: catalog.csv and apps.csv (default ./Rules)."),
            OptionSpec("--out", .one, valueName: "DIR", help: "Where the reports go (default ./iapscreen-report)."),
            OptionSpec("--from", .one, valueName: "DATE", help: "First UTC day compared, YYYY-MM-DD (default: all)."),
            OptionSpec(
                "--until", .one, valueName: "DATE", help: "Last UTC day compared, YYYY-MM-DD, inclusive (default: all)."
            ),
            OptionSpec(
                "--tolerance-days", .one, valueName: "N",
                help: "Days a credit may come after its sale and still pair, as a timing difference (default 1)."),
            OptionSpec(
                "--fail-on", .one, help: "Exit 1 when a difference reaches this severity.",
                choices: Severity.allCases.map(\.name)),
            OptionSpec("--quiet", .flag, help: "Print nothing but errors: no progress, not even the summary."),
        ],
        details: """
            Reads the store reports by content (zip, gzip, UTF-8 or UTF-16 with BOM; columns by header
            name; preamble and Total_ lines skipped). Google is matched order by order on the order
            number; Apple by units per product, Pacific report day and currency, except the
            transactions that --store-events names (charges and refunds of orders whose row gives
            its transaction_id), which are compared one by one. Writes
            reconciliation.csv (one row per difference) and reconciliation.json (per store and
            currency: matched, lost-order, unpaid-credit, refunded-still-credited, amount-mismatch,
            unit-difference, timing-difference; inputs; skipped rows) into --out. A store is compared
            only when one of its reports is given.
            Exit status: 0 done; 1 a difference at or above --fail-on; 2 bad usage or Rules;
            3 an input could not be read (nothing written). A row that cannot be read is skipped
            and listed, never fatal.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let started = SystemClock.now()
        let orders = args.many("--orders")
        let reports = args.many("--store-report")
        let receipts = args.many("--receipts")
        guard !orders.isEmpty else {
            io.usageError(command: spec, "--orders is required: the orders dump(s) whose credits are compared")
            return .usage
        }
        guard !reports.isEmpty else {
            io.usageError(command: spec, "--store-report is required: the stores' sales or earnings reports")
            return .usage
        }
        guard let window = Self.window(args, io: io) else { return .usage }
        let failOn = args.one("--fail-on").flatMap(Severity.init(name:))
        let outDir = args.one("--out") ?? "iapscreen-report"
        guard let rules = io.loadRules(args, command: "reconcile", notDone: "nothing was reconciled") else {
            return .usage
        }
        let eventPaths = args.many("--store-events")
        guard
            io.allReadable(
                orders + receipts + reports + eventPaths, command: "reconcile", consequence: "nothing written")
        else {
            return .unreadableInput
        }
        // Only store events need the trust anchors, to check their signatures.
        var verifier: ReceiptVerifier?
        if !eventPaths.isEmpty {
            guard let v = Self.verifier(rules, io: io) else { return .usage }
            verifier = v
        }

        let night = ReconcileNight(
            orders: orders, receipts: receipts, storeEvents: eventPaths, storeReports: reports, rules: rules,
            verifier: verifier, window: window)
        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: args.has("--quiet")), console: io,
            totalBytes: ProgressLine.totalSize(of: orders + receipts + reports))
        let read: ReconcileNight.Result
        do {
            read = try night.reconcile(progress: progress)
        } catch {
            progress.clear()
            return io.nightFailed(error, command: spec.name, consequence: "nothing written")
        }
        progress.clear()
        let outcome = read.outcome
        var status = ExitStatus.ok
        if let failOn,
            outcome.differences.contains(where: { (Severity(name: $0.bucket.defaultSeverity) ?? .info) >= failOn })
        {
            status = .findingsAtThreshold
        }
        var timings = read.timings
        let report = ReconciliationReport(
            outcome: outcome, inputs: read.inputs, skipped: read.skipped, notCompared: read.notCompared,
            storeRowsIgnored: read.storeRowsIgnored, window: window, started: started,
            finished: SystemClock.now(), status: status)
        do {
            try report.write(to: outDir)
        } catch {
            io.error("iapscreen reconcile: cannot write the reports in \(outDir): \(error)")
            return .unreadableInput
        }
        timings.append(("matching and reports", SystemClock.monotonicSeconds()))
        if ProcessInfo.processInfo.environment["IAPSCREEN_TIMINGS"] != nil {
            let phases = zip(timings.dropFirst(), timings).map {
                "\($0.0.0) \(String(format: "%.2f", $0.0.1 - $0.1.1)) s"
            }
            io.error("timings: " + phases.joined(separator: ", "))
        }
        if !args.has("--quiet") { io.error(report.text(outDir: outDir)) }
        return status
    }
}
