import IAPBasics
import JSONText
import Screening

/// One order (or dump record) and its findings, in input order: what the reports print.
public struct OrderReport: Sendable {
    public var orderID: String?
    public var userID: String?
    public var platform: String?
    /// The expected product.
    public var productID: String?
    public var amount: String?
    public var currency: String?
    public var createdAt: Timestamp?
    public var findings: [Finding]
    /// An order of the orders dump (not a malformed record or an orphan receipt).
    public var isOrder: Bool
    /// Key fields of the order's decoded receipt (environment, app id, transaction, dates…),
    /// in the order report.html shows them; empty when the pipeline did not fill them.
    public var receiptFields: [(key: String, value: String)]
    /// A store event, tonight's or one the ledger remembers, says the order's purchase was
    /// refunded or revoked (whatever the rules made of it; `backtest` counts these).
    public var refunded = false

    public init(
        orderID: String?, userID: String?, platform: String?, productID: String?, amount: String?,
        currency: String?, createdAt: Timestamp?, findings: [Finding], isOrder: Bool = true,
        receiptFields: [(key: String, value: String)] = []
    ) {
        self.isOrder = isOrder
        self.receiptFields = receiptFields
        self.orderID = orderID
        self.userID = userID
        self.platform = platform
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.createdAt = createdAt
        self.findings = findings
    }

    /// Flagged: some finding neither exempted nor reviewed legit.
    public var isFlagged: Bool { isOrder && findings.contains(where: \.counts) }

    /// What report.html's row of this report is about.
    public enum Subject: String, Sendable {
        /// An order: of tonight's dump, or an earlier night's that a refund finding names.
        case order
        /// A receipt whose order is not in the dump (`orphan-receipt`).
        case receipt
        /// A store event not believed (`store-event-invalid`), on the order it names if any:
        /// it shows that order but does not flag it.
        case event
    }

    /// Told by its findings, since a report that is no order holds the one finding it was made for.
    public var subject: Subject {
        if isOrder { return .order }
        if findings.contains(where: { $0.rule == OrphanReceipt.id.rawValue }) { return .receipt }
        return findings.contains { $0.rule == StoreEventInvalid.id.rawValue } ? .event : .order
    }

    /// Listed in report.html's table: some finding that is not exempted and not a malformed
    /// record (those have sections of their own). Flagged orders, orders reviewed legit (they
    /// stay visible), orphan receipts and store events not believed.
    public var isListed: Bool {
        findings.contains { $0.exempted == nil && $0.rule != MalformedRecord.id.rawValue }
    }

    /// Where the order stands with the reviewers, from its listed findings: the verdict when
    /// reviewed, else `new` when any finding is new, else `seen`; nil without a ledger.
    public var standing: String? {
        let listed = findings.filter { $0.exempted == nil }
        if let reviewed = listed.first(where: { $0.review?.status == .reviewed }) {
            return reviewed.review?.verdict ?? "reviewed"
        }
        if listed.contains(where: { $0.review?.status == .new }) { return "new" }
        if listed.contains(where: { $0.review?.status == .seen }) { return "seen" }
        return nil
    }
}

/// flagged.csv: one row per flagged order, in input order.
public enum FlaggedCSV {
    public static let header =
        "order_id,user_id,platform,product_id,amount,currency,created_at,severity,rules,reasons\n"

    /// Appends the row: the order, its worst counting severity, the rules that found it
    /// (sorted, once each) and their messages.
    public static func row(_ r: OrderReport, into out: inout [UInt8]) {
        var rules: [String] = []
        var worst: Severity?
        for f in r.findings where f.counts {
            rules.append(f.rule)
            worst = max(worst ?? f.severity, f.severity)
        }
        // Sorting is stable: of equal rules the first is kept, as a set would.
        rules.sort()
        for cell in [r.orderID, r.userID, r.platform, r.productID, r.amount, r.currency, r.createdAt?.iso8601] {
            SpreadsheetCSV.write(cell, to: &out)
            out.append(0x2C)
        }
        SpreadsheetCSV.write(worst?.name, to: &out)
        out.append(0x2C)
        var start = out.count
        for (i, rule) in rules.enumerated() where i == 0 || rule != rules[i - 1] {
            if i > 0 { out.append(0x3B) }
            out.append(contentsOf: rule.utf8)
        }
        SpreadsheetCSV.makeSafe(cellFrom: start, in: &out)
        out.append(0x2C)
        start = out.count
        var first = true
        for f in r.findings where f.counts {
            if !first { out.append(contentsOf: " | ".utf8) }
            first = false
            out.append(contentsOf: f.message.utf8)
        }
        SpreadsheetCSV.makeSafe(cellFrom: start, in: &out)
        out.append(0x0A)
    }
}

/// findings.jsonl: one object per finding, in input order of their orders.
public enum FindingsJSONL {
    public static func lines(_ r: OrderReport, into out: inout [UInt8]) {
        let writer = JSONWriter()
        for f in r.findings {
            f.writeJSON(to: &out, with: writer)
            out.append(0x0A)
        }
    }
}
