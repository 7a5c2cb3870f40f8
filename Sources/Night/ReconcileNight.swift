import Decompression
import Foundation
import IAPBasics
import ReceiptFormats
import ReceiptVerification
import Reconciliation
import Screening
import StoreReports

/// `reconcile`'s night (docs/reconcile.md): our credits, read from the dumps as `screen` reads
/// them; the App Store transactions the store-event logs name, compared one by one; and the
/// stores' own sales and earnings reports, each row matched against the credits.
package struct ReconcileNight {
    package var orders: [String]
    package var receipts: [String]
    package var storeEvents: [String]
    package var storeReports: [String]
    package var rules: RulesDirectory
    /// Needed only with store events, whose App Store signatures it checks.
    package var verifier: ReceiptVerifier?
    package var window: DayWindow

    package init(
        orders: [String], receipts: [String], storeEvents: [String], storeReports: [String], rules: RulesDirectory,
        verifier: ReceiptVerifier?, window: DayWindow
    ) {
        self.orders = orders
        self.receipts = receipts
        self.storeEvents = storeEvents
        self.storeReports = storeReports
        self.rules = rules
        self.verifier = verifier
        self.window = window
    }

    /// What the matching found, and what reconciliation.json says of the inputs.
    package struct Result {
        package var outcome: ReconciliationOutcome
        package var inputs: [InputRecord]
        package var skipped: [SkippedRow]
        package var notCompared: OurSide.NotCompared
        /// Store-report rows of products or apps not ours, and rows that are no sale.
        package var storeRowsIgnored: Int
        /// Each step and when it ended (IAPSCREEN_TIMINGS), from the start.
        package var timings: [(String, Double)]
    }

    /// Reads everything and matches it; throws when an input cannot be read (nothing is written then).
    package func reconcile(progress: (any NightProgress)? = nil) throws(NightFailure) -> Result {
        let limits = Limits.standard
        var timings: [(String, Double)] = [("start", SystemClock.monotonicSeconds())]
        var reconciler = Reconciler(window: window)
        let ours = OurSide(limits: limits)
        do {
            try ours.load(orders: orders, receipts: receipts, progress: progress)
            timings.append(("dumps", SystemClock.monotonicSeconds()))
            // Apple's transactions the events name are compared one by one: known before the credits.
            let eventInputs = try appleTransactions(into: &reconciler)
            let credits = ours.credits(rules: rules)
            reconciler.reserve(credits: credits.count)
            for credit in credits { reconciler.add(credit) }
            timings.append(("credits", SystemClock.monotonicSeconds()))
            var read = Reports(inputs: ours.inputs + eventInputs, skipped: ours.skipped)
            for path in storeReports {
                try readReport(path, into: &reconciler, &read, orders: ours.orderCount, progress)
            }
            timings.append(("store reports", SystemClock.monotonicSeconds()))
            return Result(
                outcome: reconciler.finish(stores: read.stores), inputs: read.inputs, skipped: read.skipped,
                notCompared: ours.notCompared, storeRowsIgnored: read.ignored, timings: timings)
        } catch {
            throw .input(error)
        }
    }

    /// What the store reports add to the inputs, as they are read.
    private struct Reports {
        var inputs: [InputRecord]
        var skipped: [SkippedRow]
        var ignored = 0
        var stores: Set<StoreName> = []
    }

    private func appleTransactions(into reconciler: inout Reconciler) throws(InputError) -> [InputRecord] {
        guard let verifier, !storeEvents.isEmpty else { return [] }
        var intake = StoreEventIntake(
            rules: rules, verify: { verifier.verify($0).status },
            jobs: ProcessInfo.processInfo.activeProcessorCount, limits: .standard)
        intake.keepsAppleTransactions = true
        let events = try intake.read(storeEvents)
        for t in events.appleTransactions { reconciler.add(t) }
        return events.inputs
    }

    /// One store report's rows, matched; its digest and rows for the inputs.
    private func readReport(
        _ path: String, into reconciler: inout Reconciler, _ read: inout Reports, orders: Int,
        _ progress: (any NightProgress)?
    ) throws(InputError) {
        var rows = 0
        try StoreReportFile.read(path, limits: .standard) { reader throws(InputError) in
            read.stores.insert(reader.kind.store)
            while let item = try reader.next() {
                if reader.dataRows & 4095 == 0 { progress?.tick(count: orders) }
                switch item {
                case .event(let e):
                    if Self.compared(e, rules: rules) { reconciler.add(e) } else { read.ignored += 1 }
                case .skipped(let s): read.skipped.append(s)
                case .ignored: read.ignored += 1
                }
            }
            rows += reader.dataRows
        }
        read.inputs.append(InputRecord(path: path, sha256: try sha256(ofFile: path), records: rows))
        progress?.bytes.add(fileSize(path))
        progress?.tick(count: orders)
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
