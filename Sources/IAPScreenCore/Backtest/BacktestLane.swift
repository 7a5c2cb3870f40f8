import IAPBasics
import Reporting
import Screening

/// One Rules directory's reports of a backtest, kept small: per order (or orphan receipt,
/// or malformed record) with findings, what the comparison needs and nothing of the
/// evidence. Filled by `NightScreener` as a `screen` would fill its reports.
final class BacktestLane: ReportSink {
    struct Entry {
        /// Where the report stood in the night (`NightScreener`'s report key).
        var key: Int64
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
        entries.append(Entry(key: key, orderID: r.orderID, userID: r.userID, createdAt: r.createdAt, productID: r.productID,
                             amount: r.amount, currency: r.currency,
                             findings: r.findings.map { "\($0.rule) \($0.severity.name) \($0.exempted ?? "")" }.sorted(),
                             countingRules: Set(counting.map(\.rule)).sorted(),
                             verdict: r.findings.lazy.compactMap { $0.review?.verdict }.first, refunded: r.refunded))
    }
}

/// The two lanes compared order by order (both come in input order, keyed alike).
enum BacktestDiff {
    static func compare(baseline: BacktestLane, candidate: BacktestLane, orders: Int) -> (rows: [BacktestRow], totals: BacktestTotals) {
        var totals = BacktestTotals()
        totals.orders = orders
        totals.flaggedBaseline = baseline.entries.lazy.filter(\.isFlagged).count
        totals.flaggedCandidate = candidate.entries.lazy.filter(\.isFlagged).count
        for (rule, n) in baseline.findingsByRule { totals.byRule[rule, default: .init()].baseline = n }
        for (rule, n) in candidate.findingsByRule { totals.byRule[rule, default: .init()].candidate = n }
        let a = baseline.entries.sorted { $0.key < $1.key }, b = candidate.entries.sorted { $0.key < $1.key }
        var rows: [BacktestRow] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            let before: BacktestLane.Entry?, after: BacktestLane.Entry?
            if j >= b.count || (i < a.count && a[i].key < b[j].key) {
                (before, after) = (a[i], nil)
                i += 1
            } else if i >= a.count || b[j].key < a[i].key {
                (before, after) = (nil, b[j])
                j += 1
            } else {
                (before, after) = (a[i], b[j])
                i += 1
                j += 1
            }
            guard let row = row(before, after) else { continue }
            totals.add(row)
            rows.append(row)
        }
        return (rows, totals)
    }

    /// The row of one report's place, or nil when its findings are the same both ways.
    private static func row(_ before: BacktestLane.Entry?, _ after: BacktestLane.Entry?) -> BacktestRow? {
        guard before?.findings != after?.findings, let shown = after ?? before else { return nil }
        let wasFlagged = before?.isFlagged ?? false, isFlagged = after?.isFlagged ?? false
        let change: BacktestChange = isFlagged && !wasFlagged ? .newlyFlagged : wasFlagged && !isFlagged ? .noLongerFlagged : .rulesChanged
        return BacktestRow(orderID: shown.orderID, userID: shown.userID, createdAt: shown.createdAt, productID: shown.productID,
                           amount: shown.amount, currency: shown.currency, baselineRules: before?.countingRules ?? [],
                           candidateRules: after?.countingRules ?? [], change: change,
                           verdict: after?.verdict ?? before?.verdict, refunded: (after?.refunded ?? false) || (before?.refunded ?? false))
    }
}
