import IAPBasics
import Reconciliation
import StoreReports
import Testing

/// Credits and store rows built by hand, and what the reconciler makes of them.
struct Case {
    var reconciler: Reconciler
    static let march1 = CalendarDay.from(year: 2024, month: 3, day: 1) ?? 0

    init(tolerance: Int = 1, from: Int? = nil, until: Int? = nil) {
        reconciler = Reconciler(window: DayWindow(from: from, until: until, tolerance: tolerance))
    }

    static func time(_ text: String) -> Timestamp { Timestamp.parse(text) ?? Timestamp(clampingMillis: 0) }

    mutating func credit(
        _ order: String, google number: String?, product: String = "gems_100", at: String = "2024-03-01T12:00:00Z",
        amount: String = "0.99", currency: String = "USD", refunded: Bool = false
    ) {
        reconciler.add(
            OurCredit(
                orderID: order, store: .google, storeOrderID: number, productID: product,
                createdAt: Case.time(at), amount: DecimalAmount(amount) ?? .zero, currency: currency,
                refunded: refunded))
    }

    mutating func appleCredit(
        _ order: String, product: String = "com.example.gems100", at: String, amount: String = "0.99",
        currency: String = "USD"
    ) {
        reconciler.add(
            OurCredit(
                orderID: order, store: .apple, storeOrderID: nil, productID: product,
                createdAt: Case.time(at), amount: DecimalAmount(amount) ?? .zero, currency: currency))
    }

    mutating func google(
        _ number: String, _ action: StoreReportRow.Action = .charge, kind: ReportKind = .googleSales,
        product: String = "gems_100", day: Int = Case.march1, amount: String = "0.99", currency: String = "USD"
    ) {
        reconciler.add(
            StoreReportRow(
                kind: kind, action: action, orderID: number, appID: "com.example.game", productID: product,
                day: day, currency: currency, amount: DecimalAmount(amount) ?? .zero,
                units: action == .charge ? 1 : -1, location: SourceLocation(file: "sales.csv", line: 2)))
    }

    mutating func apple(
        _ product: String = "com.example.gems100", units: Int64, day: Int, price: String = "0.99",
        currency: String = "USD"
    ) {
        reconciler.add(
            StoreReportRow(
                kind: .appleSalesSummary, action: units < 0 ? .refund : .charge, orderID: nil, appID: nil,
                productID: product, day: day, currency: currency,
                amount: (DecimalAmount(price) ?? .zero).multiplied(by: units), units: units,
                location: SourceLocation(file: "S_D.txt", line: 2)))
    }

    var outcome: ReconciliationOutcome { reconciler.finish() }

    /// `bucket order/store-order` for Google rows, `bucket product day units/units` for Apple.
    var rows: [String] {
        outcome.differences.map { d in
            d.store == .google
                ? "\(d.bucket.rawValue) \(d.orderID ?? "-")/\(d.storeOrderID ?? "-")"
                : "\(d.bucket.rawValue) \(d.productID) \(CalendarDay.text(d.day)) \(d.ourUnits)/\(d.storeUnits)"
        }
    }
}

@Suite("Reconciling Google orders one by one")
struct GoogleReconcilerTests {
    @Test("a charge and its credit the same UTC day match; nothing is reported")
    func matched() {
        var c = Case()
        c.credit("ORD-1", google: "GPA.1")
        c.google("GPA.1")
        #expect(c.rows.isEmpty)
        #expect(c.outcome.totals[.google]?["USD"]?.matched.count == 1)
        #expect(c.outcome.totals[.google]?["USD"]?.matched.amount == DecimalAmount("0.99"))
    }

    @Test("each bucket: lost order, unpaid credit, refunded still credited, amount mismatch")
    func buckets() {
        var c = Case()
        c.google("GPA.lost")
        c.credit("ORD-unpaid", google: "GPA.unpaid")
        c.credit("ORD-test", google: nil)
        c.credit("ORD-refunded", google: "GPA.refunded")
        c.google("GPA.refunded")
        c.google("GPA.refunded", .refund, day: Case.march1 + 3, amount: "-0.99")
        c.credit("ORD-cheap", google: "GPA.price", product: "gems_1200", amount: "9.99")
        c.google("GPA.price")
        c.credit("ORD-eur", google: "GPA.eur")
        c.google("GPA.eur", amount: "0.99", currency: "EUR")
        #expect(
            Set(c.rows) == [
                "lost-order -/GPA.lost", "unpaid-credit ORD-unpaid/GPA.unpaid", "unpaid-credit ORD-test/-",
                "refunded-still-credited ORD-refunded/GPA.refunded", "amount-mismatch ORD-cheap/GPA.price",
                "amount-mismatch ORD-eur/GPA.eur",
            ])
        let totals = c.outcome.totals[.google]
        #expect(totals?["USD"]?.buckets[.lostOrder]?.amount == DecimalAmount("0.99"))
        #expect(totals?["USD"]?.buckets[.amountMismatch]?.amount == DecimalAmount("-9.00"))
        #expect(totals?["EUR"]?.buckets[.amountMismatch]?.count == 1)
        // Another currency: the store's whole amount, never EUR less USD.
        #expect(totals?["EUR"]?.buckets[.amountMismatch]?.amount == DecimalAmount("0.99"))
        #expect(c.outcome.differences.first { $0.orderID == "ORD-eur" }?.ourCurrency == "USD")
        let mismatch = c.outcome.differences.first { $0.orderID == "ORD-cheap" }
        #expect(mismatch?.detail.contains("sold gems_100, we credited gems_1200") == true)
        #expect(mismatch?.ourAmount == DecimalAmount("9.99"))
        #expect(mismatch?.storeAmount == DecimalAmount("0.99"))
    }

    @Test("a refund we also recorded matches; a refund without any credit or charge is nothing")
    func consistentRefunds() {
        var c = Case()
        c.credit("ORD-1", google: "GPA.1", refunded: true)
        c.google("GPA.1")
        c.google("GPA.1", .refund, amount: "-0.99")
        c.google("GPA.orphan-refund", .refund, amount: "-0.99")
        c.google("GPA.charged-refunded")
        c.google("GPA.charged-refunded", .refund, amount: "-0.99")
        #expect(c.rows.isEmpty)
        var marked = Case()
        marked.credit("ORD-2", google: "GPA.2", refunded: true)
        marked.google("GPA.2")
        #expect(marked.rows == ["lost-order ORD-2/GPA.2"])
    }

    @Test("sales and earnings rows of one order count once; the sales amount is the one compared")
    func salesAndEarnings() {
        var c = Case()
        c.credit("ORD-1", google: "GPA.1")
        c.google("GPA.1", kind: .googleEarnings, amount: "0.83")
        c.google("GPA.1")
        c.google("GPA.1")  // an overlapping download of the same report
        #expect(c.rows.isEmpty)
        #expect(c.outcome.totals[.google]?["USD"]?.matched.count == 1)
    }

    @Test("renewals ..0 and ..1 are distinct orders")
    func renewals() {
        var c = Case()
        c.credit("ORD-1", google: "GPA.7", product: "vip_monthly", amount: "9.99")
        c.credit("ORD-2", google: "GPA.7..0", product: "vip_monthly", amount: "9.99")
        c.google("GPA.7", product: "vip_monthly", amount: "9.99")
        c.google("GPA.7..0", product: "vip_monthly", amount: "9.99")
        c.google("GPA.7..1", product: "vip_monthly", amount: "9.99")
        #expect(c.rows == ["lost-order -/GPA.7..1"])
        #expect(c.outcome.totals[.google]?["USD"]?.matched.count == 2)
    }

    @Test("one charge credited twice: the first credit pairs, the replay is an unpaid credit")
    func replay() {
        var c = Case()
        c.credit("ORD-2", google: "GPA.1", at: "2024-03-01T13:00:00Z")
        c.credit("ORD-1", google: "GPA.1", at: "2024-03-01T12:00:00Z")
        c.google("GPA.1")
        #expect(c.rows == ["unpaid-credit ORD-2/GPA.1"])
    }

    @Test("a credit the next day is a timing difference within the tolerance, a lost order past it")
    func timing() {
        var c = Case()
        c.credit("ORD-late", google: "GPA.1", at: "2024-03-02T00:00:30Z")
        c.google("GPA.1", day: Case.march1)
        c.credit("ORD-week", google: "GPA.2", at: "2024-03-08T10:00:00Z")
        c.google("GPA.2", day: Case.march1)
        #expect(c.rows == ["lost-order ORD-week/GPA.2", "timing-difference ORD-late/GPA.1"])
        var strict = Case(tolerance: 0)
        strict.credit("ORD-late", google: "GPA.1", at: "2024-03-02T00:00:30Z")
        strict.google("GPA.1", day: Case.march1)
        #expect(strict.rows == ["lost-order ORD-late/GPA.1"])
    }

    @Test("--from/--until: a pair across the edge is a timing difference; items outside alone are not reported")
    func window() {
        let m1 = Case.march1
        var c = Case(tolerance: 1, from: m1, until: m1 + 30)
        c.credit("ORD-edge", google: "GPA.edge", at: "2024-04-01T00:10:00Z")
        c.google("GPA.edge", day: m1 + 30)
        c.google("GPA.feb", day: m1 - 5)
        c.credit("ORD-april", google: "GPA.april", at: "2024-04-05T10:00:00Z")
        #expect(c.rows == ["timing-difference ORD-edge/GPA.edge"])
    }
}

@Suite("Reconciling Apple units per product, Pacific day and currency")
struct AppleReconcilerTests {
    let m1 = Case.march1

    @Test("credits converted to Pacific days match the report's units; refunds are not compared")
    func matched() {
        var c = Case()
        c.appleCredit("A1", at: "2024-03-01T07:30:00Z")  // Feb 29 in Los Angeles
        c.appleCredit("A2", at: "2024-03-01T20:00:00Z")
        c.appleCredit("A3", at: "2024-03-01T21:00:00Z")
        c.apple(units: 1, day: m1 - 1)
        c.apple(units: 2, day: m1)
        c.apple(units: -1, day: m1)
        #expect(c.rows.isEmpty)
        #expect(c.outcome.totals[.apple]?["USD"]?.matched.count == 3)
        #expect(c.outcome.totals[.apple]?["USD"]?.matched.amount == DecimalAmount("2.97"))
    }

    @Test("a sale credited the next Pacific day is a timing difference; one a week later two unit differences")
    func timing() {
        var c = Case()
        c.apple(units: 1, day: m1)
        c.appleCredit("A1", at: "2024-03-02T20:00:00Z")
        c.apple("com.example.noads", units: 1, day: m1, price: "2.99")
        c.appleCredit("A2", product: "com.example.noads", at: "2024-03-08T20:00:00Z", amount: "2.99")
        #expect(
            c.rows == [
                "unit-difference com.example.noads 2024-03-01 0/1",
                "timing-difference com.example.gems100 2024-03-01 1/1",
                "unit-difference com.example.noads 2024-03-08 1/0",
            ])
    }

    @Test("units differ per currency, never summed across currencies")
    func currencies() {
        var c = Case()
        c.appleCredit("A1", at: "2024-03-01T20:00:00Z", amount: "0.99", currency: "USD")
        c.appleCredit("A2", at: "2024-03-01T20:00:00Z", amount: "1.09", currency: "EUR")
        c.apple(units: 1, day: m1, price: "0.99", currency: "USD")
        c.apple(units: 2, day: m1, price: "1.09", currency: "EUR")
        #expect(c.rows == ["unit-difference com.example.gems100 2024-03-01 1/2"])
        let d = c.outcome.differences.first
        #expect(d?.currency == "EUR")
        #expect(d?.storeAmount == DecimalAmount("2.18"))
        #expect(c.outcome.totals[.apple]?["EUR"]?.buckets[.unitDifference]?.amount == DecimalAmount("1.09"))
        #expect(c.outcome.totals[.apple]?["USD"]?.matched.count == 1)
    }
}
