import IAPBasics
import StoreReports

/// The differences `reconcile` reports (docs/reconcile.md), in the order reports list them.
public enum Bucket: String, Sendable, CaseIterable, Hashable, Comparable {
    /// Google, and Apple where store events name the transaction: the store charged, no
    /// credited order — a user paid and got nothing.
    case lostOrder = "lost-order"
    /// Google: a credited order the store never charged — fraud or a test purchase.
    case unpaidCredit = "unpaid-credit"
    /// Google, and Apple where a store event names the refund: the store refunded, our order
    /// is still credited.
    case refundedStillCredited = "refunded-still-credited"
    /// Google: both sides have the order; amount, currency or product differ.
    case amountMismatch = "amount-mismatch"
    /// Apple: units credited and units sold differ for a product, day and currency.
    case unitDifference = "unit-difference"
    /// Paired only within the tolerance (late credit, day boundary).
    case timingDifference = "timing-difference"

    /// The default severity docs/reconcile.md gives, by name (`high`, `medium`, `info`).
    public var defaultSeverity: String {
        switch self {
        case .lostOrder, .unpaidCredit, .refundedStillCredited: return "high"
        case .amountMismatch, .unitDifference: return "medium"
        case .timingDifference: return "info"
        }
    }

    private var rank: Int { Bucket.allCases.firstIndex(of: self) ?? 0 }

    public static func < (a: Bucket, b: Bucket) -> Bool { a.rank < b.rank }
}

/// One difference: one row of reconciliation.csv, both sides' values side by side.
public struct Difference: Sendable, Equatable {
    public var store: StoreName
    public var bucket: Bucket
    /// Our order id (Google), nil when we have no order.
    public var orderID: String?
    /// Google's order number, nil when the store has none for it.
    public var storeOrderID: String?
    public var productID: String
    /// Google: the UTC day of the charge (else of our credit); Apple: the report's Pacific day.
    public var day: Int
    public var currency: String
    /// Our order's currency when it is not `currency` (the store's): an amount mismatch in currency.
    public var ourCurrency: String?
    public var ourUnits: Int64
    public var storeUnits: Int64
    public var ourAmount: DecimalAmount?
    public var storeAmount: DecimalAmount?
    public var detail: String

    /// What the row adds to its bucket's amount: lost orders and timing pairs count what the
    /// store took; unpaid and still-credited orders what we credited; mismatches and unit
    /// differences the store's amount less ours (the store's whole amount when the currencies
    /// differ). Nil when that amount is not known (a store event without a price).
    public var bucketAmount: DecimalAmount? {
        switch bucket {
        case .lostOrder, .timingDifference: return storeAmount
        case .unpaidCredit, .refundedStillCredited: return ourAmount
        case .amountMismatch, .unitDifference:
            if let ourCurrency, ourCurrency != currency { return storeAmount }
            return (storeAmount ?? .zero) - (ourAmount ?? .zero)
        }
    }

    /// The currency its bucket counts it in: `Tally.unknownCurrency` when neither side says one.
    public var bucketCurrency: String { currency.isEmpty ? Tally.unknownCurrency : currency }
}

/// A count and the money it stands for, in one currency: the sum of the amounts known, and how
/// many of the count had none (never counted as zero).
public struct Tally: Sendable, Equatable {
    public var count = 0
    public var amount = DecimalAmount.zero
    /// How many of `count` have no known amount.
    public var unknownAmounts = 0

    /// Where differences whose currency nobody gave are counted (never a currency code).
    public static let unknownCurrency = "unknown"

    public init() {}

    mutating func add(_ n: Int, _ money: DecimalAmount?) {
        count += n
        if let money { amount = amount + money } else { unknownAmounts += n }
    }
}

/// Per store and currency: what matched, and each bucket.
public struct CurrencyTotals: Sendable, Equatable {
    public var matched = Tally()
    public var buckets: [Bucket: Tally] = [:]

    public init() {}
}

/// What a reconciliation found.
public struct ReconciliationOutcome: Sendable {
    /// Sorted by store, day, bucket, product, store order id, order id.
    public var differences: [Difference]
    public var totals: [StoreName: [String: CurrencyTotals]]
    /// Credits and store events taken into the comparison (inside the window and its tolerance).
    public var creditsCompared: Int
    public var eventsCompared: Int
}

/// Inclusive days `from`…`until` (either open), and the tolerance: items up to `tolerance`
/// days outside are read so a pair across the edge is still a pair, but are never reported
/// on their own.
public struct DayWindow: Sendable {
    public var from: Int?
    public var until: Int?
    public var tolerance: Int

    public init(from: Int? = nil, until: Int? = nil, tolerance: Int = 1) {
        self.from = from
        self.until = until
        self.tolerance = max(0, tolerance)
    }

    public func contains(_ day: Int) -> Bool {
        (from.map { day >= $0 } ?? true) && (until.map { day <= $0 } ?? true)
    }

    /// Within the window widened by the tolerance on both sides.
    func reaches(_ day: Int) -> Bool {
        (from.map { day >= $0 - tolerance } ?? true) && (until.map { day <= $0 + tolerance } ?? true)
    }
}
