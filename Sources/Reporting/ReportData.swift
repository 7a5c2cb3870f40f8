import IAPBasics
import JSONText
import Screening

/// The data report.html carries: one JSON array per table, inside
/// `<script type="application/json">`, read by the page's script. Arrays rather than
/// objects, named rules and severities as numbers, and trailing fields left out when they
/// hold their default (null, "", {} or []) keep 10⁵ findings small. Every string is written
/// HTML-safe (`<`, `>`, `&`, U+2028/2029 as `\u003c`…), so nothing in a dump can close the
/// element or start markup.
///
///     meta            {"rules": [named rule ids, in RuleID order], "severities": [info … critical]}
///     table row       [order_id, user_id, platform, product_id, amount, currency, created_at, findings,
///                      standing, review, receipt_fields, kind]
///       findings        [[rule, severity, message, expected, actual, {extra…}, status, exempted], …]
///                       rule: index in meta.rules, or a custom rule's name; severity: 0 info … 4 critical;
///                       status "new" | "seen" | "reviewed" | ""; exempted "reviewer" or null
///       standing        "new" | "seen" | "fraud" | "legit" | "" (no ledger)
///       review          [verdict, note, by, at] or null
///       receipt_fields  [[key, value], …] (empty when the pipeline did not fill them)
///       kind            "receipt" (a receipt whose order is not in the dump), else null (an order)
///     exempted row    [order_id, user_id, rule, severity, message, expected, actual, {extra…}]
///     malformed row   [file, place, order_id, user_id, message]     place "line 12" / "row 3"
public enum ReportData {
    /// The `meta` object.
    public static var meta: [UInt8] {
        encoded(.object(JSONObject([("rules", .array(RuleID.allCases.map { .string($0.rawValue) })),
                                    ("severities", .array(Severity.allCases.map { .string($0.name) }))])))
    }

    static let ruleIndex: [String: Int] = Dictionary(uniqueKeysWithValues: RuleID.allCases.enumerated().map { ($1.rawValue, $0) })

    static func rule(_ name: String) -> JSONValue {
        ruleIndex[name].map { .integer($0) } ?? .string(name)
    }

    static func severity(_ s: Severity) -> JSONValue { .integer(s.rawValue) }

    /// The table row of a listed report (see `OrderReport.isListed`), else nil.
    public static func tableRow(_ r: OrderReport) -> [UInt8]? {
        guard r.isListed else { return nil }
        let review = r.findings.lazy.filter { $0.exempted == nil }.compactMap(\.review).first { $0.status == .reviewed }
        let findings: [JSONValue] = r.findings.filter { $0.rule != RuleID.malformedRecord.rawValue }.map { f in
            trimmed([rule(f.rule), severity(f.severity), .string(f.message), .string(orNull: f.evidence.expected),
                     .string(orNull: f.evidence.actual), .object(JSONObject(f.evidence.extra)),
                     .string(f.review?.status.rawValue ?? ""), .string(orNull: f.exempted)])
        }
        let fields: [JSONValue] = r.receiptFields.map { .array([.string($0.key), .string($0.value)]) }
        return encoded(trimmed([
            .string(orNull: r.orderID), .string(orNull: r.userID), .string(orNull: r.platform), .string(orNull: r.productID),
            .string(orNull: r.amount), .string(orNull: r.currency), .string(orNull: r.createdAt?.iso8601), .array(findings),
            .string(r.standing ?? ""),
            review.map { .array([.string(orNull: $0.verdict), .string(orNull: $0.note), .string(orNull: $0.by), .string(orNull: $0.at)]) } ?? .null,
            .array(fields), r.isOrder ? .null : .string("receipt"),
        ]))
    }

    /// One row per reviewer-exempted finding of the report.
    public static func exemptedRows(_ r: OrderReport) -> [[UInt8]] {
        r.findings.filter { $0.exempted != nil }.map { f in
            encoded(trimmed([.string(orNull: f.orderID), .string(orNull: f.userID), rule(f.rule), severity(f.severity),
                             .string(f.message), .string(orNull: f.evidence.expected), .string(orNull: f.evidence.actual),
                             .object(JSONObject(f.evidence.extra))]))
        }
    }

    /// An array without its trailing defaults (null, "", {} and []), which the page fills in.
    static func trimmed(_ items: [JSONValue]) -> JSONValue {
        var items = items
        while let last = items.last, isDefault(last) { items.removeLast() }
        return .array(items)
    }

    static func isDefault(_ v: JSONValue) -> Bool {
        switch v {
        case .null: return true
        case .string(let s): return s.isEmpty
        case .array(let a): return a.isEmpty
        case .object(let o): return o.members.isEmpty
        default: return false
        }
    }

    /// One row per malformed record of the report: the file and line (or XML row) it stood at.
    public static func malformedRows(_ r: OrderReport) -> [[UInt8]] {
        r.findings.filter { $0.rule == RuleID.malformedRecord.rawValue }.map { f in
            var file: String?, place = ""
            for (key, value) in f.evidence.extra {
                switch key {
                case "file": file = value.scalarText
                case "line", "row": place = "\(key) \(value.scalarText ?? "")"
                default: break
                }
            }
            return encoded(.array([.string(orNull: file), .string(place), .string(orNull: f.orderID), .string(orNull: f.userID),
                                   .string(f.message)]))
        }
    }

    static func encoded(_ value: JSONValue) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(512)
        JSONWriter(htmlSafe: true).write(value, to: &out)
        return out
    }
}
