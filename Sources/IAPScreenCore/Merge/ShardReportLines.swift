import IAPBasics
import JSONText
import Reporting
import Screening

/// What a sharded run's worker keeps beside its reports so that `merge` can write the one
/// report of the whole run (CONTRACT §10): every order report it wrote, whole, with where it
/// stood in the night (`shard-reports.jsonl`), and what its summary cannot say
/// (`shard-run.json`: the run, the rules' sentences for report.html, refunds per day). `merge`
/// feeds the reports, in the night's order, through the writer `screen` uses, so the merged
/// files are those of one unsharded run.
enum ShardReportLines {
    static let reportsFile = "shard-reports.jsonl"
    static let runFile = "shard-run.json"

    /// Where a report stood: its record's position in the inputs; what the store events
    /// found on orders not in tonight's dump comes after, in the events' order.
    static func afterNightKey(_ index: Int) -> Int64 { (1 << 40) + Int64(index) }

    /// shard-run.json: the run, this shard, the rules' sentences, refunds per day.
    static func run(_ options: ShardOptions, legend: RuleLegend, summary: RunSummary) -> JSONObject {
        let perDay = (summary.storeEvents?.refundsPerDay ?? [:]).sorted { $0.key < $1.key }
        return JSONObject([
            ("run_id", .string(options.runID)), ("shard", .string(options.shard.description)),
            ("legend", .array(legend.all.map { .array([.string($0.rule), .string($0.sentence)]) })),
            ("refunds_per_day", .array(perDay.map { .array([.integer(Int($0.key)), .integer($0.value)]) })),
        ])
    }

    static func line(_ r: OrderReport, key: Int64) -> JSONObject {
        var o: [(key: String, value: JSONValue)] = [("key", .integer(Int(key)))]
        o += [("order_id", .string(orNull: r.orderID)), ("user_id", .string(orNull: r.userID)),
              ("platform", .string(orNull: r.platform)), ("product_id", .string(orNull: r.productID)),
              ("amount", .string(orNull: r.amount)), ("currency", .string(orNull: r.currency)),
              ("created_at", .string(orNull: r.createdAt?.iso8601)), ("is_order", .bool(r.isOrder)),
              ("receipt_fields", .array(r.receiptFields.map { .array([.string($0.key), .string($0.value)]) })),
              ("findings", .array(r.findings.map { .object($0.json) }))]
        return JSONObject(o)
    }

    /// A line `line` wrote, or nil.
    static func report(_ o: JSONObject) -> (key: Int64, report: OrderReport)? {
        guard let key = o["key"]?.int64, case .array(let found)? = o["findings"],
              case .array(let fields)? = o["receipt_fields"], case .bool(let isOrder)? = o["is_order"] else { return nil }
        var findings: [Finding] = []
        for f in found {
            guard let object = f.object, var finding = Finding(json: object) else { return nil }
            if let review = object["review"]?.object {
                guard let status = review["status"]?.string.flatMap(ReviewMark.Status.init(rawValue:)) else { return nil }
                finding.review = ReviewMark(status: status, verdict: review["verdict"]?.string, note: review["note"]?.string,
                                            by: review["by"]?.string, at: review["at"]?.string)
            }
            findings.append(finding)
        }
        var receiptFields: [(key: String, value: String)] = []
        for field in fields {
            guard case .array(let pair) = field, pair.count == 2, let k = pair[0].string, let v = pair[1].string else { return nil }
            receiptFields.append((k, v))
        }
        var createdAt: Timestamp?
        if let text = o["created_at"]?.string {
            guard let t = Timestamp.parse(text) else { return nil }
            createdAt = t
        }
        return (key, OrderReport(orderID: o["order_id"]?.string, userID: o["user_id"]?.string, platform: o["platform"]?.string,
                                 productID: o["product_id"]?.string, amount: o["amount"]?.string, currency: o["currency"]?.string,
                                 createdAt: createdAt, findings: findings, isOrder: isOrder, receiptFields: receiptFields))
    }
}
