import IAPBasics
import JSONText
import Reporting
import Screening

/// One Rules directory's reports of a backtest, kept small: per order (or orphan receipt,
/// or malformed record) with findings, what the comparison needs and nothing of the
/// evidence. Filled by `NightScreener` as a `screen` would fill its reports.
final class BacktestLane: ReportSink {
    struct Entry {
        /// Where the report stood in the night (`NightScreener`'s report key).
        var key: Int64
        /// What the comparison matches it by: its order, or for a report of no order (a
        /// malformed record) where its evidence points (its place among the night's reports
        /// may differ between the two Rules directories).
        var identity: String
        var orderID: String?
        var userID: String?
        var createdAt: Timestamp?
        var productID: String?
        var amount: String?
        var currency: String?
        /// Each finding as the comparison sees it: rule, severity, exempted; sorted.
        var findings: [String]
        /// Distinct rule ids of the findings that are not exempted, sorted.
        var countingRules: [String]
        var verdict: String?
        var refunded: Bool

        /// Flagged for a backtest: some finding that is not exempted. A reviewer's `legit`
        /// does not unflag here: verdicts are what a change is judged against.
        var isFlagged: Bool { !countingRules.isEmpty }
    }

    private(set) var entries: [Entry] = []
    /// Findings that count (not exempted) per rule id.
    private(set) var findingsByRule: [String: Int] = [:]

    var formatsReports: Bool { false }
    var wantsKeys: Bool { true }

    func append(_ formatted: ReportWriter.Formatted?, of r: OrderReport, key: Int64) throws {
        let counting = r.findings.filter { $0.exempted == nil }
        for f in counting { findingsByRule[f.rule, default: 0] += 1 }
        let identity = r.orderID.map { "order " + $0 }
            ?? "record " + r.findings.map { f in JSONValue.object(JSONObject(f.evidence.extra)).jsonText + " \(f.rule)" }.joined(separator: " ")
        entries.append(Entry(key: key, identity: identity, orderID: r.orderID, userID: r.userID, createdAt: r.createdAt, productID: r.productID,
                             amount: r.amount, currency: r.currency,
                             findings: r.findings.map { "\($0.rule) \($0.severity.name) \($0.exempted ?? "")" }.sorted(),
                             countingRules: Set(counting.map(\.rule)).sorted(),
                             verdict: r.findings.lazy.compactMap { $0.review?.verdict }.first, refunded: r.refunded))
    }
}

/// The two lanes compared order by order. An order's findings may come in more than one
/// report (its own, and one the store events made after tonight's orders): they are one
/// order's, as in `screen`'s findings.jsonl. Reports without an order id (malformed
/// records) are matched by where their evidence points.
enum BacktestDiff {
    static func compare(baseline: BacktestLane, candidate: BacktestLane, orders: Int) -> (rows: [BacktestRow], totals: BacktestTotals) {
        var totals = BacktestTotals()
        totals.orders = orders
        for (rule, n) in baseline.findingsByRule { totals.byRule[rule, default: .init()].baseline = n }
        for (rule, n) in candidate.findingsByRule { totals.byRule[rule, default: .init()].candidate = n }
        let before = byOrder(baseline.entries), after = byOrder(candidate.entries)
        totals.flaggedBaseline = before.values.lazy.filter(\.isFlagged).count
        totals.flaggedCandidate = after.values.lazy.filter(\.isFlagged).count
        // In the order the reports came: by the first place each order was reported.
        let places = Set(before.keys).union(after.keys).map { id in (id, min(before[id]?.key ?? .max, after[id]?.key ?? .max)) }
        var rows: [BacktestRow] = []
        for (id, _) in places.sorted(by: { $0.1 < $1.1 }) {
            guard let row = row(before[id], after[id]) else { continue }
            totals.add(row)
            rows.append(row)
        }
        return (rows, totals)
    }

    /// Each order's reports as one entry (its first report's place and fields).
    private static func byOrder(_ entries: [BacktestLane.Entry]) -> [String: BacktestLane.Entry] {
        var out: [String: BacktestLane.Entry] = [:]
        for e in entries.sorted(by: { $0.key < $1.key }) {
            let id = e.identity
            guard var kept = out[id] else {
                out[id] = e
                continue
            }
            kept.findings = (kept.findings + e.findings).sorted()
            kept.countingRules = Set(kept.countingRules + e.countingRules).sorted()
            kept.verdict = kept.verdict ?? e.verdict
            kept.refunded = kept.refunded || e.refunded
            if kept.productID == nil, kept.createdAt == nil {
                (kept.userID, kept.createdAt, kept.productID, kept.amount, kept.currency) = (e.userID, e.createdAt, e.productID, e.amount, e.currency)
            }
            out[id] = kept
        }
        return out
    }

    /// The row of one order, or nil when its findings are the same both ways.
    private static func row(_ before: BacktestLane.Entry?, _ after: BacktestLane.Entry?) -> BacktestRow? {
        guard before?.findings != after?.findings, let shown = after ?? before else { return nil }
        let wasFlagged = before?.isFlagged ?? false, isFlagged = after?.isFlagged ?? false
        let change: BacktestChange = isFlagged && !wasFlagged ? .newlyFlagged : wasFlagged && !isFlagged ? .noLongerFlagged : .rulesChanged
        // An order's own fields, from whichever side has its own report.
        let fields = before?.productID != nil || before?.createdAt != nil ? before ?? shown : shown
        return BacktestRow(orderID: shown.orderID, userID: fields.userID, createdAt: fields.createdAt, productID: fields.productID,
                           amount: fields.amount, currency: fields.currency, baselineRules: before?.countingRules ?? [],
                           candidateRules: after?.countingRules ?? [], change: change,
                           verdict: after?.verdict ?? before?.verdict, refunded: (after?.refunded ?? false) || (before?.refunded ?? false))
    }
}
