import IAPBasics
import StoreReports

/// Apple, by totals: its reports carry no transaction ids, so units are compared per
/// product, report day (Pacific; our credits are converted to it) and currency.
///
/// Units sold are the report's positive rows; its negative rows (refunds) fall on the day
/// of the refund, which our orders do not record, so they are counted but not compared.
/// Our units are our credits, refunded ones included (each was a sale). Per product and
/// currency, day by day: what both sides have on the same day is matched; units sold that
/// are still unpaired pair with unpaired credits up to `tolerance` days later (a late
/// credit, a day boundary) as a `timing-difference`; what is left on a day is a
/// `unit-difference` with both sides' totals for that day.
struct AppleMatcher {
    struct Key: Hashable, Comparable {
        var product: String
        var currency: String

        static func < (a: Key, b: Key) -> Bool { (a.product, a.currency) < (b.product, b.currency) }
    }

    struct DayTotals {
        var ourUnits: Int64 = 0
        var ourAmount = DecimalAmount.zero
        var soldUnits: Int64 = 0
        var soldAmount = DecimalAmount.zero
        var refundedUnits: Int64 = 0
    }

    let window: DayWindow
    private var days: [Key: [Int: DayTotals]] = [:]
    private(set) var creditCount = 0
    private(set) var eventCount = 0

    init(window: DayWindow) {
        self.window = window
    }

    mutating func add(_ c: OurCredit) {
        let day = CalendarDay.pacific(c.createdAt)
        guard window.reaches(day) else { return }
        creditCount += 1
        let key = Key(product: c.productID, currency: c.currency)
        days[key, default: [:]][day, default: DayTotals()].ourUnits += 1
        days[key, default: [:]][day, default: DayTotals()].ourAmount =
            days[key]?[day].map { $0.ourAmount + c.amount } ?? c.amount
    }

    mutating func add(_ e: StoreReportRow) {
        guard window.reaches(e.day) else { return }
        eventCount += 1
        let key = Key(product: e.productID, currency: e.currency)
        var t = days[key]?[e.day] ?? DayTotals()
        // Units come from outside: a sum that would pass 64 bits stops at the largest value.
        if e.units > 0 {
            t.soldUnits = AppleMatcher.saturating(t.soldUnits, e.units)
            t.soldAmount = t.soldAmount + e.amount
        } else {
            t.refundedUnits = AppleMatcher.saturating(t.refundedUnits, e.units == .min ? .max : -e.units)
        }
        days[key, default: [:]][e.day] = t
    }

    /// Takes one sale out of the report's units: a transaction compared on its own.
    mutating func removeSale(product: String, day: Int, currency: String, amount: DecimalAmount) {
        let key = Key(product: product, currency: currency)
        guard var t = days[key]?[day], t.soldUnits > 0 else { return }
        t.soldUnits -= 1
        t.soldAmount = t.soldAmount - amount
        days[key, default: [:]][day] = t
    }

    static func saturating(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    func finish(into ledger: inout Ledger) {
        for key in days.keys.sorted() {
            guard let byDay = days[key] else { continue }
            decide(key, byDay, into: &ledger)
        }
    }

    private func decide(_ key: Key, _ byDay: [Int: DayTotals], into ledger: inout Ledger) {
        let order = byDay.keys.sorted()
        // Same day first.
        var soldLeft: [Int: Int64] = [:]
        var creditsLeft: [Int: Int64] = [:]
        for day in order {
            guard let t = byDay[day] else { continue }
            let both = min(t.ourUnits, t.soldUnits)
            if both > 0, window.contains(day) {
                ledger.matched(
                    .apple, key.currency, count: Int(both), amount: t.soldAmount.share(both, of: t.soldUnits))
            }
            soldLeft[day] = t.soldUnits - both
            creditsLeft[day] = t.ourUnits - both
        }
        // Then sales with credits up to `tolerance` days later.
        for day in order where (soldLeft[day] ?? 0) > 0 && window.tolerance > 0 {
            for later in (day + 1)...(day + window.tolerance) {
                let sold = soldLeft[day] ?? 0
                let credited = creditsLeft[later] ?? 0
                let paired = min(sold, credited)
                guard paired > 0 else { continue }
                soldLeft[day] = sold - paired
                creditsLeft[later] = credited - paired
                guard window.contains(day) || window.contains(later), let t = byDay[day], let c = byDay[later] else {
                    continue
                }
                ledger.report(
                    Difference(
                        store: .apple, bucket: .timingDifference, orderID: nil, storeOrderID: nil,
                        productID: key.product,
                        day: day, currency: key.currency, ourCurrency: nil, ourUnits: paired, storeUnits: paired,
                        ourAmount: c.ourAmount.share(paired, of: c.ourUnits),
                        storeAmount: t.soldAmount.share(paired, of: t.soldUnits),
                        detail:
                            "\(paired) unit(s) sold \(CalendarDay.text(day)) credited \(CalendarDay.text(later)), \(later - day) day(s) later"
                    ))
            }
        }
        for day in order where window.contains(day) {
            guard let t = byDay[day], (soldLeft[day] ?? 0) != 0 || (creditsLeft[day] ?? 0) != 0 else { continue }
            var detail = "\(t.soldUnits) sold, \(t.ourUnits) credited"
            let unpairedSold = soldLeft[day] ?? 0
            let unpairedCredits = creditsLeft[day] ?? 0
            if unpairedSold > 0 { detail += "; \(unpairedSold) sold without a credit" }
            if unpairedCredits > 0 { detail += "; \(unpairedCredits) credited without a sale" }
            if t.refundedUnits > 0 { detail += "; \(t.refundedUnits) refunded that day" }
            ledger.report(
                Difference(
                    store: .apple, bucket: .unitDifference, orderID: nil, storeOrderID: nil,
                    productID: key.product, day: day, currency: key.currency,
                    ourUnits: t.ourUnits, storeUnits: t.soldUnits, ourAmount: t.ourAmount,
                    storeAmount: t.soldAmount, detail: detail))
        }
    }
}
