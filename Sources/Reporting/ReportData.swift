import IAPBasics
import JSONText
import Screening

/// The data report.html carries: one JSON array per table, inside
/// `<script type="application/json">`, read by the page's script. Every string is written
/// HTML-safe (`<`, `>`, `&`, U+2028/2029 as `\u003c`…), so nothing in a dump can close the
/// element or start markup.
///
/// 10⁵ findings stay small: arrays rather than objects; severities as numbers; trailing
/// fields left out when they hold their default (null, "", [] ); and the values that repeat
/// from row to row (marked ⁺ below: rules, platforms, products, amounts, currencies,
/// expected and actual values, evidence keys, files) written once in a table of shared
/// strings and referred to by their index there. A row is formatted on any thread with its
/// shared strings left as holes (`Element`); `SharedStrings` fills them in, in report order,
/// so the table is the same for the same input.
///
///     strings         ["…", …]: the shared strings, by index
///     table row       [order_id, user_id, platform⁺, product_id⁺, amount⁺, currency⁺, created_at,
///                      findings, standing⁺, review, receipt_fields, kind⁺]
///       findings        [[rule⁺, severity, message, expected⁺, actual⁺, [key⁺, value, …], status⁺, exempted⁺], …]
///                       severity 0 info … 4 critical; status "new" | "seen" | "reviewed" | ""
///       standing        "new" | "seen" | "fraud" | "legit" | "" (no ledger)
///       review          [verdict, note, by, at] or null
///       receipt_fields  [[key, value], …] (empty when the pipeline did not fill them)
///       kind            "receipt" (a receipt whose order is not in the dump), else null (an order)
///     exempted row    [order_id, user_id, rule⁺, severity, message, expected⁺, actual⁺, [key⁺, value, …]]
///     malformed row   [file⁺, place, order_id, user_id, message]     place "line 12" / "row 3"
///
/// A ⁺ field holds a number (the index of a shared string) or, when the table is full or
/// the string is long, the string itself.
public enum ReportData {
    /// One element of a data array: its JSON with the shared strings left out, and where
    /// each goes (offsets ascending).
    public struct Element: Sendable {
        public var bytes: [UInt8] = []
        public var holes: [(offset: Int, text: String)] = []
    }

    /// What an element is built from, before trailing defaults are left out.
    indirect enum Item {
        case json(JSONValue)
        case shared(String?)
        case list([Item])

        static func string(_ s: String?) -> Item { .json(.string(orNull: s)) }

        var isDefault: Bool {
            switch self {
            case .json(.null), .shared(nil): return true
            case .json(.string(let s)), .shared(.some(let s)): return s.isEmpty
            case .json(.array(let a)): return a.isEmpty
            case .list(let items): return items.isEmpty
            default: return false
            }
        }
    }

    static func severity(_ s: Severity) -> Item { .json(.integer(s.rawValue)) }

    /// Evidence keys beside expected and actual, as `[key⁺, value, …]`.
    static func extra(_ e: Evidence) -> Item {
        .list(e.extra.flatMap { [Item.shared($0.key), .json($0.value)] })
    }

    /// The table row of a listed report (see `OrderReport.isListed`), else nil.
    public static func tableRow(_ r: OrderReport) -> Element? {
        guard r.isListed else { return nil }
        let review = r.findings.lazy.filter { $0.exempted == nil }.compactMap(\.review).first { $0.status == .reviewed }
        let findings: [Item] = r.findings.filter { $0.rule != MalformedRecord.id.rawValue }.map { f in
            .list([
                .shared(f.rule), severity(f.severity), .string(f.message), .shared(f.evidence.expected),
                .shared(f.evidence.actual), extra(f.evidence), .shared(f.review?.status.rawValue), .shared(f.exempted),
            ])
        }
        let fields: [Item] = r.receiptFields.map { .list([.string($0.key), .string($0.value)]) }
        let reviewed: Item =
            review.map { .list([.string($0.verdict), .string($0.note), .string($0.by), .string($0.at)]) }
            ?? .json(.null)
        return element(
            .list([
                .string(r.orderID), .string(r.userID), .shared(r.platform), .shared(r.productID), .shared(r.amount),
                .shared(r.currency),
                .string(r.createdAt?.iso8601), .list(findings), .shared(r.standing), reviewed, .list(fields),
                .shared(r.isOrder ? nil : "receipt"),
            ]))
    }

    /// One row per reviewer-exempted finding of the report.
    public static func exemptedRows(_ r: OrderReport) -> [Element] {
        r.findings.filter { $0.exempted != nil }.map { f in
            element(
                .list([
                    .string(f.orderID), .string(f.userID), .shared(f.rule), severity(f.severity), .string(f.message),
                    .shared(f.evidence.expected), .shared(f.evidence.actual), extra(f.evidence),
                ]))
        }
    }

    /// One row per malformed record of the report: the file and line (or XML row) it stood at.
    public static func malformedRows(_ r: OrderReport) -> [Element] {
        r.findings.filter { $0.rule == MalformedRecord.id.rawValue }.map { f in
            var file: String?
            var place = ""
            for (key, value) in f.evidence.extra {
                switch key {
                case "file": file = value.scalarText
                case "line", "row": place = "\(key) \(value.scalarText ?? "")"
                default: break
                }
            }
            return element(
                .list([.shared(file), .string(place), .string(f.orderID), .string(f.userID), .string(f.message)]))
        }
    }

    static func element(_ item: Item) -> Element {
        var e = Element()
        e.bytes.reserveCapacity(256)
        write(item, into: &e)
        return e
    }

    /// Lists lose their trailing defaults; a shared string becomes a hole (null when nil).
    static func write(_ item: Item, into e: inout Element) {
        switch item {
        case .json(let v): JSONWriter(htmlSafe: true).write(v, to: &e.bytes)
        case .shared(nil): e.bytes.append(contentsOf: "null".utf8)
        case .shared(.some(let s)): e.holes.append((e.bytes.count, s))
        case .list(var items):
            while let last = items.last, last.isDefault { items.removeLast() }
            e.bytes.append(0x5B)
            for (i, x) in items.enumerated() {
                if i > 0 { e.bytes.append(0x2C) }
                write(x, into: &e)
            }
            e.bytes.append(0x5D)
        }
    }
}

/// The page's table of shared strings, filled in report order: each string gets the next
/// index the first time it is seen. Bounded: strings longer than `maxLength`, and every new
/// string once `maxCount` are in, are written in place instead.
public struct SharedStrings: Sendable {
    private var index: [String: Int] = [:]
    public private(set) var strings: [String] = []
    let maxCount: Int
    let maxLength: Int

    public init(maxCount: Int = 20_000, maxLength: Int = 120) {
        self.maxCount = maxCount
        self.maxLength = maxLength
    }

    /// The element's bytes with every hole filled: an index, or the string itself.
    public mutating func resolve(_ e: ReportData.Element) -> [UInt8] {
        guard !e.holes.isEmpty else { return e.bytes }
        var out = [UInt8]()
        out.reserveCapacity(e.bytes.count + e.holes.count * 4)
        var at = 0
        for (offset, text) in e.holes {
            out.append(contentsOf: e.bytes[at..<offset])
            at = offset
            if let i = number(of: text) {
                out.append(contentsOf: String(i).utf8)
            } else {
                JSONWriter(htmlSafe: true).writeString(text, to: &out)
            }
        }
        out.append(contentsOf: e.bytes[at...])
        return out
    }

    mutating func number(of text: String) -> Int? {
        if let i = index[text] { return i }
        guard strings.count < maxCount, text.utf8.count <= maxLength else { return nil }
        index[text] = strings.count
        strings.append(text)
        return strings.count - 1
    }

    /// The table as a JSON array, HTML-safe.
    public var json: [UInt8] {
        var out = [UInt8]()
        JSONWriter(htmlSafe: true).write(.array(strings.map { .string($0) }), to: &out)
        return out
    }
}
