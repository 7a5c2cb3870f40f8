/// An order a run flagged, as the ledger keeps it for the desk (CONTRACT §14): what its
/// flagged.csv row says, the store transactions its receipt named, the receipt's key fields
/// and each counting finding as its findings.jsonl line.
public struct FlaggedOrderRecord: Sendable, Equatable {
    public var orderID: String
    public var userID: String?
    public var platform: String?
    public var productID: String?
    public var amount: String?
    public var currency: String?
    /// §7 time text, as the reports print it.
    public var createdAt: String?
    /// The most severe counting finding's severity (`Severity.rawValue`: 0 info … 4 critical).
    public var severity: Int
    /// The rules of its counting findings, sorted, once each.
    public var rules: [String]
    /// Claim keys of the purchases its receipt named (`ClaimKey`): what `q` finds it by and
    /// what the order page looks up in the claims.
    public var transactions: [String]
    /// The receipt's key fields in the order `decode` gives them, as a JSON array of
    /// `[name, value]` pairs; nil when the order had no receipt that decoded.
    public var receipt: String?
    /// Each counting finding's findings.jsonl line (without its newline), in report order.
    public var findings: [(rule: String, line: String)]

    public init(
        orderID: String, userID: String?, platform: String?, productID: String?, amount: String?,
        currency: String?, createdAt: String?, severity: Int, rules: [String], transactions: [String],
        receipt: String?, findings: [(rule: String, line: String)]
    ) {
        self.orderID = orderID
        self.userID = userID
        self.platform = platform
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.createdAt = createdAt
        self.severity = severity
        self.rules = rules
        self.transactions = transactions
        self.receipt = receipt
        self.findings = findings
    }

    public static func == (a: FlaggedOrderRecord, b: FlaggedOrderRecord) -> Bool {
        a.orderID == b.orderID && a.userID == b.userID && a.platform == b.platform && a.productID == b.productID
            && a.amount == b.amount && a.currency == b.currency && a.createdAt == b.createdAt
            && a.severity == b.severity && a.rules == b.rules && a.transactions == b.transactions
            && a.receipt == b.receipt && a.findings.map(\.rule) == b.findings.map(\.rule)
            && a.findings.map(\.line) == b.findings.map(\.line)
    }

    /// The rules as the ledger keeps them: space-separated with a space at each end, so a
    /// rule is found by `' ' || id || ' '` and never by a part of another id.
    public var rulesColumn: String { " " + rules.joined(separator: " ") + " " }

    /// `rulesColumn` read back.
    public static func rules(fromColumn text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
