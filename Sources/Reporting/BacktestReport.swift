import IAPBasics
import JSONText

/// How an order's findings differ between the baseline Rules and the candidate (docs/backtest.md).
public enum BacktestChange: String, Sendable, CaseIterable {
    case newlyFlagged = "newly-flagged"
    case noLongerFlagged = "no-longer-flagged"
    case rulesChanged = "rules-changed"
}

/// One order (or orphan receipt) whose findings differ: a row of backtest.csv.
public struct BacktestRow: Sendable, Equatable {
    public var orderID: String?
    public var userID: String?
    public var createdAt: Timestamp?
    public var productID: String?
    public var amount: String?
    public var currency: String?
    /// Distinct rule ids of the findings that count (not exempted), sorted.
    public var baselineRules: [String]
    public var candidateRules: [String]
    public var change: BacktestChange
    /// The reviewer's verdict in the ledger (`fraud`, `legit`), or nil.
    public var verdict: String?
    /// A store event (tonight's or one the ledger remembers) says the purchase was refunded.
    public var refunded: Bool
    /// Rules on both lists whose findings count at another severity under the candidate.
    public var severityChanges: [SeverityChange]

    public init(
        orderID: String?, userID: String?, createdAt: Timestamp?, productID: String?, amount: String?,
        currency: String?, baselineRules: [String], candidateRules: [String], change: BacktestChange,
        verdict: String?, refunded: Bool, severityChanges: [SeverityChange] = []
    ) {
        self.orderID = orderID
        self.userID = userID
        self.createdAt = createdAt
        self.productID = productID
        self.amount = amount
        self.currency = currency
        self.baselineRules = baselineRules
        self.candidateRules = candidateRules
        self.change = change
        self.verdict = verdict
        self.refunded = refunded
        self.severityChanges = severityChanges
    }

    public static let csvHeader =
        "order_id,user_id,created_at,product_id,amount,currency,baseline_rules,candidate_rules,change,verdict,refunded\n"

    /// The row as backtest.csv writes it (cells escaped as flagged.csv's are).
    public var csvRow: String {
        SpreadsheetCSV.row([
            orderID, userID, createdAt?.iso8601, productID, amount, currency,
            baselineRules.joined(separator: ";"), candidateRules.joined(separator: ";"), change.rawValue,
            verdict, refunded ? "yes" : "no",
        ])
    }

    /// The row as backtest.html's data holds it.
    public var json: JSONObject {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return JSONObject([
            ("order_id", text(orderID)), ("user_id", text(userID)), ("created_at", text(createdAt?.iso8601)),
            ("product_id", text(productID)), ("amount", text(amount)), ("currency", text(currency)),
            ("baseline_rules", .array(baselineRules.map(JSONValue.string))),
            ("candidate_rules", .array(candidateRules.map(JSONValue.string))),
            ("change", .string(change.rawValue)), ("verdict", text(verdict)), ("refunded", .bool(refunded)),
            ("severity_changes", .array(severityChanges.map { .object($0.json) })),
        ])
    }
}

/// What backtest.json says: per rule, findings each way; the orders whose flag changes,
/// with money per currency; and those orders against reviewers' verdicts and refunds.
public struct BacktestTotals: Sendable, Equatable {
    public struct RuleCounts: Sendable, Equatable {
        /// Findings that count (not exempted) under each Rules directory.
        public var baseline = 0
        public var candidate = 0
        /// Orders that have the rule under the candidate and not the baseline, and the reverse.
        public var added = 0
        public var removed = 0

        public init() {}
    }

    /// Orders whose flag changes one way (newly flagged, or no longer flagged).
    public struct Side: Sendable, Equatable {
        public var orders = 0
        /// Sum of their amounts per currency.
        public var atRisk: [String: DecimalAmount] = [:]
        /// Of them: reviewed fraud, reviewed legit, refunded by the store.
        public var reviewedFraud = 0
        public var reviewedLegit = 0
        public var refunded = 0

        public init() {}

        public mutating func add(_ row: BacktestRow) {
            orders += 1
            if let currency = row.currency, let amount = row.amount.flatMap(DecimalAmount.init) {
                atRisk[currency, default: DecimalAmount.zero] = atRisk[currency, default: DecimalAmount.zero] + amount
            }
            if row.verdict == "fraud" { reviewedFraud += 1 }
            if row.verdict == "legit" { reviewedLegit += 1 }
            if row.refunded { refunded += 1 }
        }

        var json: JSONObject {
            JSONObject([
                ("orders", .integer(orders)),
                (
                    "at_risk",
                    .object(
                        JSONObject(
                            atRisk.sorted { $0.key < $1.key }.map {
                                (key: $0.key, value: .string($0.value.text(in: $0.key)))
                            }))
                ),
                ("reviewed_fraud", .integer(reviewedFraud)), ("reviewed_legit", .integer(reviewedLegit)),
                ("refunded", .integer(refunded)),
            ])
        }
    }

    /// Orders (and orphan receipts) screened, and how many were flagged under each.
    public var orders = 0
    public var flaggedBaseline = 0
    public var flaggedCandidate = 0
    public var byRule: [String: RuleCounts] = [:]
    public var newlyFlagged = Side()
    public var noLongerFlagged = Side()
    /// Orders flagged under both whose rules differ.
    public var rulesChanged = Side()
    /// Findings counted under both at another severity, per rule and pair of severities.
    public var severityChanged: [SeverityChange] = []

    public init() {}

    /// Counts one row's change (`add` for every changed order).
    public mutating func add(_ row: BacktestRow) {
        switch row.change {
        case .newlyFlagged: newlyFlagged.add(row)
        case .noLongerFlagged: noLongerFlagged.add(row)
        case .rulesChanged: rulesChanged.add(row)
        }
        for c in row.severityChanges { SeverityChange.add(c, to: &severityChanged) }
        let before = Set(row.baselineRules)
        let after = Set(row.candidateRules)
        for rule in after.subtracting(before) { byRule[rule, default: RuleCounts()].added += 1 }
        for rule in before.subtracting(after) { byRule[rule, default: RuleCounts()].removed += 1 }
    }

    public func json(version: String, baseline: String, candidate: String) -> JSONObject {
        let rules = byRule.keys.sorted().map { id -> (key: String, value: JSONValue) in
            let c = byRule[id] ?? RuleCounts()
            return (
                id,
                .object(
                    JSONObject([
                        ("baseline", .integer(c.baseline)), ("candidate", .integer(c.candidate)),
                        ("added", .integer(c.added)), ("removed", .integer(c.removed)),
                    ]))
            )
        }
        return JSONObject([
            ("version", .string(version)),
            ("baseline", .string(baseline)), ("candidate", .string(candidate)),
            ("orders", .integer(orders)),
            (
                "flagged",
                .object(
                    JSONObject([
                        ("baseline", .integer(flaggedBaseline)),
                        ("candidate", .integer(flaggedCandidate)),
                    ]))
            ),
            ("by_rule", .object(JSONObject(rules))),
            ("newly_flagged", .object(newlyFlagged.json)),
            ("no_longer_flagged", .object(noLongerFlagged.json)),
            ("rules_changed", .object(rulesChanged.json)),
            ("severity_changed", .array(SeverityChange.sorted(severityChanged).map { .object($0.json) })),
        ])
    }

    /// The five-second line on stderr: `+312 flagged (41 reviewed fraud, 3 legit, 57 refunded),
    /// −12 no longer flagged (2 reviewed fraud)`, then each severity change, counted.
    public var summaryLine: String {
        func detail(_ s: Side, legit: Bool) -> String {
            var parts = ["\(s.reviewedFraud) reviewed fraud"]
            if legit || s.reviewedLegit > 0 { parts.append("\(s.reviewedLegit) legit") }
            parts.append("\(s.refunded) refunded")
            return parts.joined(separator: ", ")
        }
        var line =
            "+\(newlyFlagged.orders) flagged (\(detail(newlyFlagged, legit: true))), "
            + "\u{2212}\(noLongerFlagged.orders) no longer flagged (\(detail(noLongerFlagged, legit: false)))"
        if rulesChanged.orders > 0 { line += ", \(rulesChanged.orders) flagged under both with other findings" }
        if !severityChanged.isEmpty {
            line += "; " + SeverityChange.sorted(severityChanged).map(\.words).joined(separator: ", ")
        }
        return line
    }
}
