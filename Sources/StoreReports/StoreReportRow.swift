import IAPBasics

/// One row of a store report, typed: a charge or a refund of one order (Google), or units
/// of one product sold or refunded on one day (Apple).
public struct StoreReportRow: Sendable, Equatable {
    public enum Action: String, Sendable {
        case charge
        case refund
    }

    public var kind: ReportKind
    public var action: Action
    /// Google's order number (`GPA.…`, renewals `..N`); nil for Apple.
    public var orderID: String?
    /// Google's package name, when the report names it.
    public var appID: String?
    /// The store product id (Google `SKU ID`, Apple `SKU`).
    public var productID: String
    /// Days since 1970-01-01: Google's UTC day of the charge; Apple's report (Pacific) day.
    public var day: Int
    /// Upper-case three-letter code.
    public var currency: String
    /// Google: the amount as written (a refund may be negative); Apple: units × customer price.
    public var amount: DecimalAmount
    /// Apple units (negative = refunds); Google 1, or -1 for a refund.
    public var units: Int64
    public var location: SourceLocation

    public init(
        kind: ReportKind, action: Action, orderID: String?, appID: String?, productID: String, day: Int,
        currency: String, amount: DecimalAmount, units: Int64, location: SourceLocation
    ) {
        self.kind = kind
        self.action = action
        self.orderID = orderID
        self.appID = appID
        self.productID = productID
        self.day = day
        self.currency = currency
        self.amount = amount
        self.units = units
        self.location = location
    }
}

/// A data row that could not be read: reported, never dropped silently, never fatal.
public struct SkippedRow: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

/// What one data row of a report is.
public enum ReportItem: Sendable, Equatable {
    case event(StoreReportRow)
    case skipped(SkippedRow)
    /// A row the reconciliation does not compare: an app sale, a Google fee or tax line.
    case ignored
}
