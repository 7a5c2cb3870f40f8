import Decompression
import Foundation
import IAPBasics
import ReceiptFormats
import ReceiptVerification
import Reconciliation
import Screening
import StoreReports

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
            OptionSpec("--orders", .many, valueName: "PATH", help: "Orders dumps, as for screen. Required."),
            OptionSpec(
                "--receipts", .many, valueName: "PATH", help: "Receipts dumps (order_id, receipt, received_at)."),
            OptionSpec(
                "--store-report", .many, valueName: "PATH",
                help:
                    "Google Play sales/earnings reports (.zip, .csv) and Apple Sales Summary reports (.txt.gz). Required."
            ),
            StoreEventIntake.option,
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
        var window = DayWindow()
        for (flag, assign) in [
            ("--from", { (d: Int) in window.from = d }), ("--until", { (d: Int) in window.until = d }),
        ] {
            guard let text = args.one(flag) else { continue }
            guard let day = CalendarDay.parse(text) else {
                io.usageError(command: spec, "\(flag) takes a date as YYYY-MM-DD, not '\(text)'")
                return .usage
            }
            assign(day)
        }
        if let from = window.from, let until = window.until, from > until {
            io.usageError(command: spec, "--from \(CalendarDay.text(from)) is after --until \(CalendarDay.text(until))")
            return .usage
        }
        if let text = args.one("--tolerance-days") {
            guard let n = Int(text), n >= 0, n <= 366 else {
                io.usageError(
                    command: spec, "--tolerance-days takes a whole number of days from 0 to 366, not '\(text)'")
                return .usage
            }
            window.tolerance = n
        }
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
        var verifier: ReceiptVerifier?
        if !eventPaths.isEmpty {
            do {
                verifier = try ReceiptVerifier(
                    appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
            } catch {
                io.error("\(error.path): error: \(error.reason)")
                io.error("iapscreen reconcile: the Rules directory has 1 problem(s); nothing was reconciled")
                return .usage
            }
        }

        let limits = Limits.standard
        var reconciler = Reconciler(window: window)
        let ours = OurSide(limits: limits)
        var inputs: [InputRecord] = []
        var eventInputs: [InputRecord] = []
        var skipped: [SkippedRow] = []
        var ignored = 0
        var storesRead: Set<StoreName> = []
        var timings: [(String, Double)] = [("start", SystemClock.monotonicSeconds())]
        let progress = ProgressLine(
            enabled: ProgressLine.wanted(quiet: false), console: io,
            totalBytes: ProgressLine.totalSize(of: orders + receipts + reports))
        do {
            try ours.load(orders: orders, receipts: receipts, progress: progress)
            let ordersRead = ours.orderCount
            timings.append(("dumps", SystemClock.monotonicSeconds()))
            if let verifier {
                // Apple's transactions the events name are compared one by one: known before the credits.
                var intake = StoreEventIntake(
                    rules: rules, verify: { verifier.verify($0).status },
                    jobs: ProcessInfo.processInfo.activeProcessorCount, limits: limits)
                intake.keepsAppleTransactions = true
                let events = try intake.read(eventPaths)
                for t in events.appleTransactions { reconciler.add(t) }
                eventInputs = events.inputs
            }
            let credits = ours.credits(rules: rules)
            reconciler.reserve(credits: credits.count)
            for credit in credits { reconciler.add(credit) }
            timings.append(("credits", SystemClock.monotonicSeconds()))
            inputs = ours.inputs + eventInputs
            skipped = ours.skipped
            for path in reports {
                var rows = 0
                try StoreReportFile.read(path, limits: limits) { reader throws(InputError) in
                    storesRead.insert(reader.kind.store)
                    while let item = try reader.next() {
                        if reader.dataRows & 4095 == 0 { progress.tick(count: ordersRead) }
                        switch item {
                        case .event(let e):
                            if compared(e, rules: rules) { reconciler.add(e) } else { ignored += 1 }
                        case .skipped(let s): skipped.append(s)
                        case .ignored: ignored += 1
                        }
                    }
                    rows += reader.dataRows
                }
                inputs.append(InputRecord(path: path, sha256: try sha256(ofFile: path), records: rows))
                progress.bytes.add(ProgressLine.totalSize(of: [path]))
                progress.tick(count: ordersRead)
            }
        } catch {
            progress.clear()
            io.error("iapscreen reconcile: cannot read \(error.path): \(error.reason); nothing written")
            return .unreadableInput
        }

        progress.clear()
        timings.append(("store reports", SystemClock.monotonicSeconds()))
        let outcome = reconciler.finish(stores: storesRead)
        var status = ExitStatus.ok
        if let failOn,
            outcome.differences.contains(where: { (Severity(name: $0.bucket.defaultSeverity) ?? .info) >= failOn })
        {
            status = .findingsAtThreshold
        }
        let report = ReconciliationReport(
            outcome: outcome, inputs: inputs, skipped: skipped, notCompared: ours.notCompared,
            storeRowsIgnored: ignored, window: window, started: started,
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
        io.error(report.text(outDir: outDir))
        return status
    }

    /// Only products in catalog.csv and (Google) apps in apps.csv are compared.
    static func compared(_ e: StoreReportRow, rules: RulesDirectory) -> Bool {
        let platform: Platform = e.kind.store == .google ? .android : .ios
        if platform == .android, rules.hasAppsFile, let app = e.appID, !rules.isOurApp(app, platform: .android) {
            return false
        }
        return rules.catalog.product(e.productID, platform: platform) != nil
    }
}
