import IAPBasics
import StoreReports

/// Our credits against the stores' reports (docs/reconcile.md): add every credit, stream every
/// store event past, then `finish`. Google is matched order by order (`GoogleMatcher`),
/// Apple by units per product, Pacific day and currency (`AppleMatcher`). Money stays per
/// currency; nothing is ever summed across currencies.
public struct Reconciler {
    public let window: DayWindow
    private var google: GoogleMatcher
    private var apple: AppleMatcher
    private var appleTransactions = AppleTransactions()
    private var appleTaken = 0

    public init(window: DayWindow) {
        self.window = window
        google = GoogleMatcher(window: window)
        apple = AppleMatcher(window: window)
    }

    /// Room for `credits` credits up front (their tables then never grow while filling).
    public mutating func reserve(credits: Int) {
        google.reserve(credits)
    }

    /// An App Store transaction a store event names: add them all before the credits.
    public mutating func add(_ event: AppleTransactionEvent) {
        appleTransactions.add(event)
    }

    public mutating func add(_ credit: OurCredit) {
        switch credit.store {
        case .google: google.add(credit)
        case .apple:
            if appleTransactions.take(credit) {
                appleTaken += 1
            } else {
                apple.add(credit)
            }
        }
    }

    public mutating func add(_ event: StoreReportRow) {
        switch event.kind.store {
        case .google: google.add(event)
        case .apple: apple.add(event)
        }
    }

    /// Decides every store in `stores` (by default both); a store none of whose reports was
    /// read is left out, so that a run with only Google's reports does not call every Apple
    /// credit unpaid.
    public func finish(stores: Set<StoreName> = Set(StoreName.allCases)) -> ReconciliationOutcome {
        var ledger = Ledger()
        if stores.contains(.google) { google.finish(into: &ledger) }
        if stores.contains(.apple) {
            var units = apple
            for sale in appleTransactions.sales {
                units.removeSale(product: sale.product, day: sale.day, currency: sale.currency, amount: sale.amount)
            }
            units.finish(into: &ledger)
            appleTransactions.finish(window: window, into: &ledger)
        }
        let sorted = ledger.differences.sorted { a, b in
            (a.store, a.day, a.bucket, a.productID, a.storeOrderID ?? "", a.orderID ?? "")
                < (b.store, b.day, b.bucket, b.productID, b.storeOrderID ?? "", b.orderID ?? "")
        }
        return ReconciliationOutcome(
            differences: sorted, totals: ledger.totals,
            creditsCompared: (stores.contains(.google) ? google.creditCount : 0)
                + (stores.contains(.apple) ? apple.creditCount + appleTaken : 0),
            eventsCompared: google.eventCount + apple.eventCount)
    }
}
