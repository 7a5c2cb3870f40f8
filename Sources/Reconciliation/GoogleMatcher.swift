import IAPBasics
import StoreReports

/// Google Play, order by order on the order number (renewals `..N` are distinct orders).
///
/// Our credits are held keyed by order number; store rows stream past and leave their mark
/// on the credit they belong to, so memory grows with our orders and with store orders we
/// have no credit for, never with the report's rows. Several rows of one order — a sales
/// and an earnings row, a charge and its refund, overlapping downloads — are one order:
/// the first charge counts (a sales row's amount before an earnings row's), any refund
/// marks it refunded.
///
/// Deciding an order whose credits (earliest first) and store side are known:
/// - no store charge or refund: every credit still credited is an `unpaid-credit`;
/// - more credits than one: the first pairs, the others are `unpaid-credit` (one charge, two
///   credits: a replay);
/// - refunded by the store: a credit still credited is `refunded-still-credited`;
/// - charged: a credit we marked refunded is a `lost-order` (the user paid, we took it
///   back); a different amount, currency or product is an `amount-mismatch`; credited the
///   charge's UTC day is matched, within `tolerance` days a `timing-difference`, later a
///   `lost-order` (credited too late), earlier an `unpaid-credit`;
/// - charged with no credit: `lost-order`; refunded with no credit: nothing (money returned).
struct GoogleMatcher {
    struct Credit {
        var orderID: String
        var storeOrderID: String
        var product: UInt32
        var currency: UInt32
        var amount: DecimalAmount
        var createdAtMillis: Int64
        var refunded: Bool
        /// The next credit with the same order number, or -1.
        var next: Int32 = -1
        var isHead = true

        var day: Int { CalendarDay.utc(Timestamp(clampingMillis: createdAtMillis)) }
    }

    struct StoreSide {
        var charged = false
        var refunded = false
        var chargeFromSales = false
        var amount = DecimalAmount.zero
        var currency: UInt32 = 0
        var product: UInt32 = 0
        var day = 0
        var seen: Bool { charged || refunded }
    }

    let window: DayWindow
    private var pool = TextPool()
    private var credits: [Credit] = []
    private var sides: [StoreSide] = []
    private var headOf: [String: Int32] = [:]
    private var withoutOrderNumber: [OurCredit] = []
    private var storeOnly: [String: StoreSide] = [:]
    private(set) var creditCount = 0
    private(set) var eventCount = 0

    init(window: DayWindow) {
        self.window = window
    }

    mutating func reserve(_ n: Int) {
        headOf.reserveCapacity(n)
        credits.reserveCapacity(n)
        sides.reserveCapacity(n)
    }

    mutating func add(_ c: OurCredit) {
        guard window.reaches(CalendarDay.utc(c.createdAt)) else { return }
        creditCount += 1
        guard let number = c.storeOrderID else {
            withoutOrderNumber.append(c)
            return
        }
        var credit = Credit(
            orderID: c.orderID, storeOrderID: number, product: pool.id(c.productID),
            currency: pool.id(c.currency), amount: c.amount, createdAtMillis: c.createdAt.millis,
            refunded: c.refunded)
        let index = Int32(truncatingIfNeeded: credits.count)
        if let head = headOf[number] {
            // Linked behind the head; the group is ordered when it is decided.
            credit.isHead = false
            credit.next = credits[Int(head)].next
            credits[Int(head)].next = index
        } else {
            headOf[number] = index
        }
        credits.append(credit)
        sides.append(StoreSide())
    }

    mutating func add(_ e: StoreReportRow) {
        guard let number = e.orderID, window.reaches(e.day) else { return }
        eventCount += 1
        let currency = pool.id(e.currency)
        let product = pool.id(e.productID)
        if let head = headOf[number] {
            GoogleMatcher.merge(e, currency: currency, product: product, into: &sides[Int(head)])
        } else {
            GoogleMatcher.merge(e, currency: currency, product: product, into: &storeOnly[number, default: StoreSide()])
        }
    }

    private static func merge(_ e: StoreReportRow, currency: UInt32, product: UInt32, into side: inout StoreSide) {
        switch e.action {
        case .charge:
            let fromSales = e.kind == .googleSales
            guard !side.charged || (fromSales && !side.chargeFromSales) else { return }
            side.charged = true
            side.chargeFromSales = fromSales
            side.amount = e.amount
            side.currency = currency
            side.product = product
            side.day = e.day
        case .refund:
            side.refunded = true
            if !side.charged {
                side.currency = currency
                side.product = product
                side.day = e.day
            }
        }
    }

    // MARK: Deciding

    func finish(into ledger: inout Ledger) {
        let tolerance = window.tolerance
        for c in withoutOrderNumber where !c.refunded && window.contains(CalendarDay.utc(c.createdAt)) {
            ledger.report(
                Difference(
                    store: .google, bucket: .unpaidCredit, orderID: c.orderID, storeOrderID: nil,
                    productID: c.productID, day: CalendarDay.utc(c.createdAt), currency: c.currency,
                    ourCurrency: nil, ourUnits: 1, storeUnits: 0, ourAmount: c.amount, storeAmount: nil,
                    detail:
                        "no Google order number: the order has no transaction_id and its receipt none (a test purchase?)"
                ))
        }
        for index in credits.indices where credits[index].isHead {
            var group: [Credit] = []
            var i = Int32(index)
            while i >= 0 {
                group.append(credits[Int(i)])
                i = credits[Int(i)].next
            }
            group.sort { ($0.createdAtMillis, $0.orderID) < ($1.createdAtMillis, $1.orderID) }
            decide(group, sides[index], tolerance: tolerance, into: &ledger)
        }
        for (number, side) in storeOnly where side.charged && !side.refunded && window.contains(side.day) {
            ledger.report(
                row(.lostOrder, nil, number, side, "the store charged; no order of ours has this order number"))
        }
    }

    private func decide(_ group: [Credit], _ side: StoreSide, tolerance: Int, into ledger: inout Ledger) {
        guard let first = group.first else { return }
        if !side.seen {
            for c in group where !c.refunded && window.contains(c.day) {
                ledger.report(
                    row(
                        .unpaidCredit, c, c.storeOrderID, nil,
                        "credited; the store reports no charge for this order number"))
            }
            return
        }
        for c in group.dropFirst() where !c.refunded && window.contains(c.day) {
            ledger.report(
                row(
                    .unpaidCredit, c, c.storeOrderID, side,
                    "the store charged this order number once; order \(first.orderID) already took it"))
        }
        let inScope = window.contains(side.day) || window.contains(first.day)
        guard inScope else { return }
        let storeCurrency = pool.text(side.currency)
        if side.refunded {
            if first.refunded {
                ledger.matched(.google, storeCurrency, count: 1, amount: side.amount)
            } else {
                ledger.report(
                    row(
                        .refundedStillCredited, first, first.storeOrderID, side,
                        "the store refunded this order; ours is still credited"))
            }
            return
        }
        if first.refunded {
            ledger.report(
                row(
                    .lostOrder, first, first.storeOrderID, side,
                    "the store charged and did not refund; our order is marked refunded"))
            return
        }
        var differs: [String] = []
        if side.currency != first.currency || side.amount != first.amount {
            let ourCurrency = pool.text(first.currency)
            differs.append(
                "the store charged \(side.amount.text(in: storeCurrency)) \(storeCurrency), "
                    + "we credited \(first.amount.text(in: ourCurrency)) \(ourCurrency)")
        }
        if side.product != first.product {
            differs.append("the store sold \(pool.text(side.product)), we credited \(pool.text(first.product))")
        }
        if !differs.isEmpty {
            ledger.report(row(.amountMismatch, first, first.storeOrderID, side, differs.joined(separator: "; ")))
            return
        }
        let gap = first.day - side.day
        if gap == 0 {
            ledger.matched(.google, storeCurrency, count: 1, amount: side.amount)
        } else if abs(gap) <= tolerance {
            ledger.report(
                row(
                    .timingDifference, first, first.storeOrderID, side,
                    gap > 0
                        ? "charged \(CalendarDay.text(side.day)), credited \(gap) day(s) later"
                        : "credited \(CalendarDay.text(first.day)), charged \(-gap) day(s) later"))
        } else if gap > 0 {
            ledger.report(
                row(
                    .lostOrder, first, first.storeOrderID, side,
                    "charged \(CalendarDay.text(side.day)) but credited only \(gap) days later, past the tolerance of \(tolerance)"
                ))
        } else {
            ledger.report(
                row(
                    .unpaidCredit, first, first.storeOrderID, side,
                    "credited \(CalendarDay.text(first.day)), \(-gap) days before the store charged, past the tolerance of \(tolerance)"
                ))
        }
    }

    private func row(_ bucket: Bucket, _ c: Credit?, _ number: String, _ side: StoreSide?, _ detail: String)
        -> Difference
    {
        let charged = side.map { $0.charged && !$0.refunded } ?? false
        let storeKnown = side?.seen ?? false
        let product = storeKnown ? side.map { pool.text($0.product) } : c.map { pool.text($0.product) }
        let currency = storeKnown ? side.map { pool.text($0.currency) } : c.map { pool.text($0.currency) }
        return Difference(
            store: .google, bucket: bucket, orderID: c?.orderID, storeOrderID: number,
            productID: product ?? "", day: storeKnown ? (side?.day ?? 0) : (c?.day ?? 0),
            currency: currency ?? "",
            ourCurrency: c.map { pool.text($0.currency) }.flatMap { $0 == currency ? nil : $0 },
            ourUnits: c.map { $0.refunded ? 0 : 1 } ?? 0, storeUnits: charged ? 1 : 0,
            ourAmount: c?.amount, storeAmount: side.flatMap { $0.charged ? $0.amount : nil }, detail: detail)
    }
}
