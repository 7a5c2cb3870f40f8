import IAPBasics
import JSONText
import Night
import Reporting
import Screening

/// Texts both lanes of a backtest share, each kept once and named by a number: a million
/// reports repeat a few dozen finding lists, products and amounts.
final class BacktestTexts {
    private var ids: [[String]: Int32] = [:]
    private var lists: [[String]] = []

    func id(_ list: [String]) -> Int32 {
        if let id = ids[list] { return id }
        lists.append(list)
        let id = Int32(lists.count - 1)
        ids[list] = id
        return id
    }

    func id(_ text: String?) -> Int32 { text.map { id([$0]) } ?? -1 }

    func list(_ id: Int32) -> [String] { lists.indices.contains(Int(id)) ? lists[Int(id)] : [] }
    func text(_ id: Int32) -> String? { lists.indices.contains(Int(id)) ? lists[Int(id)].first : nil }
}

/// One Rules directory's reports of a backtest, kept small: per order (or orphan receipt,
/// or malformed record) with findings, what the comparison needs and nothing of the
/// evidence. Filled by `NightScreener` as a `screen` would fill its reports.
final class BacktestLane: ReportSink {
    /// Nothing of a lane is on disk.
    func abandon() {}

    struct Entry {
        /// Where the report stood in the night (`NightScreener`'s report key).
        var key: Int64
        var orderID: String?
        /// A report of no order (a malformed record) is matched by where its evidence
        /// points: its place among the night's reports may differ between the two lanes.
        var record: String?
        var userID: String?
        var createdAt: Timestamp?
        /// In `BacktestTexts`: the product, amount and currency.
        var productID: Int32, amount: Int32, currency: Int32
        /// In `BacktestTexts`: each finding as "rule severity exempted", sorted.
        var findings: Int32
        /// In `BacktestTexts`: distinct rule ids of the findings that are not exempted (whatever
        /// the order's review), sorted.
        var counting: Int32
        /// In `BacktestTexts`: those findings as "rule severity", sorted.
        var severities: Int32
        /// Flagged as `screen` counts it (docs/outputs.md): the totals.
        var isFlagged: Bool
        /// An order with a finding that is not exempted, whatever its review: how each order
        /// changed (a `legit` order the candidate flags again is a false positive it brings back).
        var flaggedWhateverReview: Bool
        var verdict: String?
        var refunded: Bool

        enum Identity: Hashable {
            case order(String)
            case record(String)
        }

        var identity: Identity { orderID.map(Identity.order) ?? .record(record ?? "") }
    }

    let texts: BacktestTexts
    private(set) var entries: [Entry] = []
    /// Findings that count (neither exempted nor reviewed legit, as `screen` counts them) per rule id.
    private(set) var findingsByRule: [String: Int] = [:]

    init(texts: BacktestTexts) {
        self.texts = texts
    }

    var formatter: (@Sendable (OrderReport) -> ReportLines)? { nil }
    var wantsKeys: Bool { true }

    func append(_ formatted: ReportLines?, of r: OrderReport, key: Int64) throws {
        // The totals count as `screen` does; the rows show an order's findings whatever its review.
        for f in r.findings where f.counts { findingsByRule[f.rule, default: 0] += 1 }
        let counting = r.findings.filter { $0.exempted == nil }
        let record =
            r.orderID != nil
            ? nil
            : r.findings.map { JSONValue.object(JSONObject($0.evidence.extra)).jsonText + " " + $0.rule }.joined(
                separator: " ")
        entries.append(
            Entry(
                key: key, orderID: r.orderID, record: record, userID: r.userID, createdAt: r.createdAt,
                productID: texts.id(r.productID), amount: texts.id(r.amount), currency: texts.id(r.currency),
                findings: texts.id(r.findings.map { "\($0.rule) \($0.severity.name) \($0.exempted ?? "")" }.sorted()),
                counting: texts.id(Set(counting.map(\.rule)).sorted()),
                severities: texts.id(counting.map { "\($0.rule) \($0.severity.name)" }.sorted()),
                isFlagged: r.isFlagged, flaggedWhateverReview: r.isOrder && !counting.isEmpty,
                verdict: r.findings.lazy.compactMap { $0.review?.verdict }.first, refunded: r.refunded))
    }

    /// Each order's reports as one entry (at its first report's place, with the fields of
    /// the first that has them): an order's findings may come in its own report and in
    /// one the store events made after tonight's orders, and are one order's, as in
    /// `screen`'s findings.jsonl.
    func byOrder() -> [Entry.Identity: Entry] {
        var out: [Entry.Identity: Entry] = [:]
        out.reserveCapacity(entries.count)
        for e in entries {
            let id = e.identity
            guard var kept = out[id] else {
                out[id] = e
                continue
            }
            kept.findings = texts.id((texts.list(kept.findings) + texts.list(e.findings)).sorted())
            kept.counting = texts.id(Set(texts.list(kept.counting) + texts.list(e.counting)).sorted())
            kept.severities = texts.id((texts.list(kept.severities) + texts.list(e.severities)).sorted())
            kept.isFlagged = kept.isFlagged || e.isFlagged
            kept.flaggedWhateverReview = kept.flaggedWhateverReview || e.flaggedWhateverReview
            kept.verdict = kept.verdict ?? e.verdict
            kept.refunded = kept.refunded || e.refunded
            if kept.productID < 0, kept.createdAt == nil {
                (kept.userID, kept.createdAt, kept.productID, kept.amount, kept.currency) = (
                    e.userID, e.createdAt, e.productID, e.amount, e.currency
                )
            }
            kept.key = min(kept.key, e.key)
            out[id] = kept
        }
        return out
    }
}

/// The two lanes compared order by order, in the order the reports came.
enum BacktestDiff {
    static func compare(baseline: BacktestLane, candidate: BacktestLane, orders: Int) -> (
        rows: [BacktestRow], totals: BacktestTotals
    ) {
        var totals = BacktestTotals()
        totals.orders = orders
        for (rule, n) in baseline.findingsByRule { totals.byRule[rule, default: .init()].baseline = n }
        for (rule, n) in candidate.findingsByRule { totals.byRule[rule, default: .init()].candidate = n }
        let before = baseline.byOrder()
        let after = candidate.byOrder()
        totals.flaggedBaseline = before.values.lazy.filter(\.isFlagged).count
        totals.flaggedCandidate = after.values.lazy.filter(\.isFlagged).count
        var changed: [(key: Int64, row: BacktestRow)] = []
        for id in Set(before.keys).union(after.keys) {
            let b = before[id]
            let a = after[id]
            guard let row = row(b, a, texts: baseline.texts) else { continue }
            changed.append((min(b?.key ?? .max, a?.key ?? .max), row))
        }
        let rows = changed.sorted { $0.key < $1.key }.map(\.row)
        for row in rows { totals.add(row) }
        return (rows, totals)
    }

    /// The row of one order, or nil when its findings are the same both ways.
    private static func row(_ before: BacktestLane.Entry?, _ after: BacktestLane.Entry?, texts: BacktestTexts)
        -> BacktestRow?
    {
        guard before?.findings != after?.findings, let shown = after ?? before else { return nil }
        let wasFlagged = before?.flaggedWhateverReview ?? false
        let isFlagged = after?.flaggedWhateverReview ?? false
        let change: BacktestChange =
            isFlagged && !wasFlagged ? .newlyFlagged : wasFlagged && !isFlagged ? .noLongerFlagged : .rulesChanged
        // An order's own fields, from whichever side has its own report.
        let fields = before.map { $0.productID >= 0 || $0.createdAt != nil } == true ? before ?? shown : shown
        return BacktestRow(
            orderID: shown.orderID, userID: fields.userID, createdAt: fields.createdAt,
            productID: texts.text(fields.productID), amount: texts.text(fields.amount),
            currency: texts.text(fields.currency),
            baselineRules: before.map { texts.list($0.counting) } ?? [],
            candidateRules: after.map { texts.list($0.counting) } ?? [],
            change: change, verdict: after?.verdict ?? before?.verdict,
            refunded: (after?.refunded ?? false) || (before?.refunded ?? false),
            severityChanges: SeverityChange.between(
                before.map { texts.list($0.severities) } ?? [], after.map { texts.list($0.severities) } ?? []))
    }
}
