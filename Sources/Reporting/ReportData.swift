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
/// shared strings left as holes (`ReportLines`); `SharedStrings` fills them in, in report order,
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
///       kind            "receipt" (a receipt whose order is not in the dump), "event" (a store event
///                       not believed, on the order it names if any), else null (an order)
///     exempted row    [order_id, user_id, rule⁺, severity, message, expected⁺, actual⁺, [key⁺, value, …]]
///     malformed row   [file⁺, place, order_id, user_id, message]     place "line 12" / "row 3"
///
/// A ⁺ field holds a number (the index of a shared string) or, when the table is full or
/// the string is long, the string itself.
public enum ReportData {
    /// Writes a report's data elements into `w`: its table row (when listed, see
    /// `OrderReport.isListed`), then one row per exempted finding, then one per malformed record.
    static func elements(_ r: OrderReport, into w: inout Writer) {
        if r.isListed { tableRow(r, into: &w) }
        for f in r.findings where f.exempted != nil { exemptedRow(f, into: &w) }
        for f in r.findings where f.rule == MalformedRecord.id.rawValue { malformedRow(f, into: &w) }
    }

    static func tableRow(_ r: OrderReport, into w: inout Writer) {
        let review = r.findings.lazy.filter { $0.exempted == nil }.compactMap(\.review).first { $0.status == .reviewed }
        w.open()
        w.string(r.orderID)
        w.string(r.userID)
        w.shared(r.platform)
        w.shared(r.productID)
        w.shared(r.amount)
        w.shared(r.currency)
        w.string(r.createdAt?.iso8601)
        w.open()
        for f in r.findings where f.rule != MalformedRecord.id.rawValue {
            w.open()
            said(f, into: &w)
            w.shared(f.review?.status.rawValue)
            w.shared(f.exempted)
            w.close()
        }
        w.close()
        w.shared(r.standing)
        if let review {
            w.open()
            w.string(review.verdict)
            w.string(review.note)
            w.string(review.by)
            w.string(review.at)
            w.close()
        } else {
            w.value(.null)
        }
        w.open()
        for (key, value) in r.receiptFields {
            w.open()
            w.string(key)
            w.string(value)
            w.close()
        }
        w.close()
        w.shared(r.subject == .order ? nil : r.subject.rawValue)
        w.close()
        w.end(.rows)
    }

    /// A reviewer-exempted finding.
    static func exemptedRow(_ f: Finding, into w: inout Writer) {
        w.open()
        w.string(f.orderID)
        w.string(f.userID)
        said(f, into: &w)
        w.close()
        w.end(.exempted)
    }

    /// What a finding says, as both tables write it: rule⁺, severity, message, expected⁺,
    /// actual⁺ and the evidence's other keys.
    static func said(_ f: Finding, into w: inout Writer) {
        w.shared(f.rule)
        w.number(f.severity.rawValue)
        w.string(f.message)
        w.shared(f.evidence.expected)
        w.shared(f.evidence.actual)
        w.open()
        for (key, value) in f.evidence.extra {
            w.shared(key)
            w.value(value)
        }
        w.close()
    }

    /// A malformed record: the file and line (or XML row) it stood at.
    static func malformedRow(_ f: Finding, into w: inout Writer) {
        var file: String?
        var place = ""
        for (key, value) in f.evidence.extra {
            switch key {
            case "file": file = value.scalarText
            case "line", "row": place = "\(key) \(value.scalarText ?? "")"
            default: break
            }
        }
        w.open()
        w.shared(file)
        w.string(place)
        w.string(f.orderID)
        w.string(f.userID)
        w.string(f.message)
        w.close()
        w.end(.malformed)
    }

    /// Writes elements straight into bytes, HTML-safe. A list loses its trailing defaults
    /// (null, "", an empty list) as it closes; a shared string becomes a hole.
    struct Writer {
        var bytes: [UInt8] = []
        /// Where each shared string goes, offsets ascending.
        var holes: [(offset: Int, text: String)] = []
        /// Each element written: its section, and where its bytes and its holes end.
        var elements: [(section: ReportHTML.Section, end: Int, holesEnd: Int)] = []
        /// The lists open, innermost last: how many items each has so far, and where it ends
        /// without its trailing defaults.
        private var lists: [(items: Int, keptEnd: Int, keptHoles: Int)] = []
        private let json = JSONWriter(htmlSafe: true)

        init() {
            lists.reserveCapacity(4)
        }

        mutating func open() {
            nextItem()
            bytes.append(0x5B)
            lists.append((0, bytes.count, holes.count))
        }

        /// A list that has items is no default, even when all of them are.
        mutating func close() {
            guard let list = lists.popLast() else { return }
            bytes.removeSubrange(list.keptEnd...)
            holes.removeSubrange(list.keptHoles...)
            bytes.append(0x5D)
            if list.items > 0 { keep() }
        }

        mutating func end(_ section: ReportHTML.Section) {
            elements.append((section, bytes.count, holes.count))
        }

        mutating func string(_ s: String?) {
            nextItem()
            json.write(orNull: s, to: &bytes)
            if let s, !s.isEmpty { keep() }
        }

        mutating func shared(_ s: String?) {
            nextItem()
            guard let s else { return bytes.append(contentsOf: "null".utf8) }
            holes.append((bytes.count, s))
            if !s.isEmpty { keep() }
        }

        mutating func number(_ n: Int) {
            nextItem()
            bytes.append(contentsOf: String(n).utf8)
            keep()
        }

        mutating func value(_ v: JSONValue) {
            nextItem()
            json.write(v, to: &bytes)
            switch v {
            case .null: return
            case .string(let s) where s.isEmpty: return
            case .array(let a) where a.isEmpty: return
            default: keep()
            }
        }

        /// The separator before an item of the innermost list.
        private mutating func nextItem() {
            guard let last = lists.indices.last else { return }
            if lists[last].items > 0 { bytes.append(0x2C) }
            lists[last].items += 1
        }

        /// The item just written is no default: the innermost list keeps all up to here.
        private mutating func keep() {
            guard let last = lists.indices.last else { return }
            lists[last].keptEnd = bytes.count
            lists[last].keptHoles = holes.count
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

    /// A hole filled: the string's index, or the string itself.
    public mutating func write(_ text: String, to out: inout [UInt8]) {
        if let i = number(of: text) {
            out.append(contentsOf: String(i).utf8)
        } else {
            JSONWriter(htmlSafe: true).writeString(text, to: &out)
        }
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
