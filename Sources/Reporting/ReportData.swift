import IAPBasics
import JSONText
import Screening

/// The data report.html carries: one JSON array per table, inside
/// `<script type="application/json">`, read by the page's script. Arrays rather than
/// objects keep 10⁵ findings small. Every string is written HTML-safe (`<`, `>`, `&`,
/// U+2028/2029 as `\u003c`…), so nothing in a dump can close the element or start markup.
///
///     table row       [order_id, user_id, platform, product_id, amount, currency, created_at,
///                      severity, standing, kind, findings, receipt_fields, review]
///       severity        the highest of its findings that are not exempted
///       standing        "new" | "seen" | "fraud" | "legit" | "" (no ledger)
///       kind            "order" | "receipt" (a receipt whose order is not in the dump)
///       findings        [[rule, severity, message, expected, actual, {extra…}, status, exempted], …]
///                       status "new" | "seen" | "reviewed" | ""; exempted "reviewer" or null
///       receipt_fields  [[key, value], …] (empty when the pipeline did not fill them)
///       review          [verdict, note, by, at] or null
///     exempted row    [order_id, user_id, rule, severity, message, expected, actual, {extra…}]
///     malformed row   [file, place, order_id, user_id, message]     place "line 12" / "row 3"
public enum ReportData {
    /// The table row of a listed report (see `OrderReport.isListed`), else nil.
    public static func tableRow(_ r: OrderReport) -> [UInt8]? {
        guard r.isListed else { return nil }
        let shown = r.findings.filter { $0.rule != RuleID.malformedRecord.rawValue }
        let severity = shown.filter { $0.exempted == nil }.map(\.severity).max()
        let review = shown.lazy.compactMap(\.review).first { $0.status == .reviewed }
        let findings: [JSONValue] = shown.map { f in
            .array([.string(f.rule), .string(f.severity.name), .string(f.message), .string(orNull: f.evidence.expected),
                    .string(orNull: f.evidence.actual), .object(JSONObject(f.evidence.extra)),
                    .string(f.review?.status.rawValue ?? ""), .string(orNull: f.exempted)])
        }
        let fields: [JSONValue] = r.receiptFields.map { .array([.string($0.key), .string($0.value)]) }
        let row: JSONValue = .array([
            .string(orNull: r.orderID), .string(orNull: r.userID), .string(orNull: r.platform), .string(orNull: r.productID),
            .string(orNull: r.amount), .string(orNull: r.currency), .string(orNull: r.createdAt?.iso8601),
            .string(severity?.name ?? ""), .string(r.standing ?? ""), .string(r.isOrder ? "order" : "receipt"),
            .array(findings), .array(fields),
            review.map { .array([.string(orNull: $0.verdict), .string(orNull: $0.note), .string(orNull: $0.by), .string(orNull: $0.at)]) } ?? .null,
        ])
        return encoded(row)
    }

    /// One row per reviewer-exempted finding of the report.
    public static func exemptedRows(_ r: OrderReport) -> [[UInt8]] {
        r.findings.filter { $0.exempted != nil }.map { f in
            encoded(.array([.string(orNull: f.orderID), .string(orNull: f.userID), .string(f.rule), .string(f.severity.name),
                            .string(f.message), .string(orNull: f.evidence.expected), .string(orNull: f.evidence.actual),
                            .object(JSONObject(f.evidence.extra))]))
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
