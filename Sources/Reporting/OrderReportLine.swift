import IAPBasics
import JSONText
import Screening

/// An order report whole, as one JSON object with where it stood in the night: what a sharded
/// run's worker keeps beside its reports (`shard-reports.jsonl`) and `merge` reads back, so
/// the merged reports come out of the same writer as one run's. Read back from files on disk:
/// a line it did not write is nil, never a crash.
public enum OrderReportLine {
    public static func line(_ r: OrderReport, key: Int64) -> JSONObject {
        var o: [(key: String, value: JSONValue)] = [("key", .integer(Int(key)))]
        o += [
            ("order_id", .string(orNull: r.orderID)), ("user_id", .string(orNull: r.userID)),
            ("platform", .string(orNull: r.platform)), ("product_id", .string(orNull: r.productID)),
            ("amount", .string(orNull: r.amount)), ("currency", .string(orNull: r.currency)),
            ("created_at", .string(orNull: r.createdAt?.iso8601)), ("is_order", .bool(r.isOrder)),
            ("receipt_fields", .array(r.receiptFields.map { .array([.string($0.key), .string($0.value)]) })),
            ("findings", .array(r.findings.map { .object($0.json) })),
        ]
        return JSONObject(o)
    }

    /// A line `line` wrote, or nil.
    public static func report(_ o: JSONObject) -> (key: Int64, report: OrderReport)? {
        guard let key = o["key"]?.int64, case .array(let found)? = o["findings"],
            case .array(let fields)? = o["receipt_fields"], case .bool(let isOrder)? = o["is_order"]
        else { return nil }
        var findings: [Finding] = []
        for f in found {
            guard let object = f.object, var finding = Finding(json: object) else { return nil }
            if let review = object["review"]?.object {
                guard let status = review["status"]?.string.flatMap(ReviewMark.Status.init(rawValue:)) else {
                    return nil
                }
                finding.review = ReviewMark(
                    status: status, verdict: review["verdict"]?.string, note: review["note"]?.string,
                    by: review["by"]?.string, at: review["at"]?.string)
            }
            findings.append(finding)
        }
        var receiptFields: [(key: String, value: String)] = []
        for field in fields {
            guard case .array(let pair) = field, pair.count == 2, let k = pair[0].string, let v = pair[1].string else {
                return nil
            }
            receiptFields.append((k, v))
        }
        var createdAt: Timestamp?
        if let text = o["created_at"]?.string {
            guard let t = Timestamp.parse(text) else { return nil }
            createdAt = t
        }
        return (
            key,
            OrderReport(
                orderID: o["order_id"]?.string, userID: o["user_id"]?.string, platform: o["platform"]?.string,
                productID: o["product_id"]?.string, amount: o["amount"]?.string, currency: o["currency"]?.string,
                createdAt: createdAt, findings: findings, isOrder: isOrder, receiptFields: receiptFields)
        )
    }
}
