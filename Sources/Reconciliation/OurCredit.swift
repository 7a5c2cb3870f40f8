import IAPBasics
import StoreReports

/// One of our orders as the reconciliation compares it: credited (or marked refunded), in
/// production, worth more than nothing, of a product in the catalog.
public struct OurCredit: Sendable, Equatable {
    public var orderID: String
    public var store: StoreName
    /// Google's order number: the order's `transaction_id`, else its receipt's `orderId`;
    /// nil when neither says (a test purchase has none). Apple: the order's `transaction_id`
    /// (compared per transaction when a store event names it).
    public var storeOrderID: String?
    public var productID: String
    public var createdAt: Timestamp
    public var amount: DecimalAmount
    public var currency: String
    /// We marked the order refunded (it matches a store charge plus a refund).
    public var refunded: Bool

    public init(
        orderID: String, store: StoreName, storeOrderID: String?, productID: String, createdAt: Timestamp,
        amount: DecimalAmount, currency: String, refunded: Bool = false
    ) {
        self.orderID = orderID
        self.store = store
        self.storeOrderID = storeOrderID
        self.productID = productID
        self.createdAt = createdAt
        self.amount = amount
        self.currency = currency
        self.refunded = refunded
    }
}

/// Repeated text (products, currencies) kept once and referred to by number.
struct TextPool {
    private var ids: [String: UInt32] = [:]
    private var texts: [String] = []

    mutating func id(_ text: String) -> UInt32 {
        if let id = ids[text] { return id }
        texts.append(text)
        let id = UInt32(truncatingIfNeeded: texts.count - 1)
        ids[text] = id
        return id
    }

    func text(_ id: UInt32) -> String {
        Int(id) < texts.count ? texts[Int(id)] : ""
    }
}

/// Collects rows and totals as a matcher decides them.
struct Ledger {
    var differences: [Difference] = []
    var totals: [StoreName: [String: CurrencyTotals]] = [:]

    mutating func matched(_ store: StoreName, _ currency: String, count: Int, amount: DecimalAmount) {
        totals[store, default: [:]][currency, default: CurrencyTotals()].matched.add(count, amount)
    }

    mutating func report(_ d: Difference) {
        differences.append(d)
        totals[d.store, default: [:]][d.bucketCurrency, default: CurrencyTotals()].buckets[d.bucket, default: Tally()]
            .add(1, d.bucketAmount)
    }
}
