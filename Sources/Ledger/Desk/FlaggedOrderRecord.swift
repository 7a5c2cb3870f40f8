/// An order a run flagged, whole (CONTRACT §14): what its flagged.csv row says, the store
/// transactions its receipt named, the receipt's key fields and each counting finding as its
/// findings.jsonl line. What tests and benchmarks hand a run record; `FlaggedNight` packs it
/// into a head and a block entry as a night packs its own.
public struct FlaggedOrderRecord: Sendable {
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

}
