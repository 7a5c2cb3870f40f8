import IAPBasics
import JSONText

/// Reads records as orders or receipts: finds each field by its aliases, checks and types
/// its value. A record that cannot be an order (no `order_id`, an unknown status, …) is a
/// `UnreadableRecord` whose reason names the field and the value.
public final class DumpRowMapper {
    // `@exclusivity(unchecked)`: only this object's own methods touch it, never two accesses
    // at once; the run-time check was a thread-local lookup at every use (swift_beginAccess).
    /// Field name -> column, remembered: a dump repeats the same few names on every record.
    /// Bounded, since JSON Lines may bring new names on every line.
    @exclusivity(unchecked) private var columnByName: [String: DumpColumn?] = [:]
    private static let maxRememberedNames = 4_096

    public init() {}

    public func orderRow(_ record: DumpRecord) throws(UnreadableRecord) -> OrderRow {
        let v = columns(of: record)
        let fail = { (reason: String) in UnreadableRecord(location: record.location, reason: reason) }
        guard let orderID = v.text(.orderID) else { throw fail("missing order_id") }
        guard let userID = v.text(.userID) else { throw fail("missing user_id") }
        guard let createdAt = try v.timestamp(.createdAt).get() else { throw fail("missing created_at") }
        // Neither item nor product is still an order: one without a receipt is
        // `missing-receipt`, which needs no product (the resolver decides).
        let itemID = v.text(.itemID)
        let productID = v.text(.productID)

        var platform: OrderPlatform?
        if let text = v.text(.platform) {
            guard let p = OrderPlatform(dumpText: text) else {
                throw fail("platform \(quotedValue(text)) is not ios or android")
            }
            platform = p
        }
        var status = OrderStatus.credited
        if let text = v.text(.status) {
            guard let s = OrderStatus(dumpText: text) else {
                throw fail("status \(quotedValue(text)) is not credited, pending, refunded or failed")
            }
            status = s
        }
        var environment: OrderEnvironment?
        if let text = v.text(.environment) {
            guard let e = OrderEnvironment(dumpText: text) else {
                throw fail("environment \(quotedValue(text)) is not production or sandbox")
            }
            environment = e
        }
        let amount = v.text(.amount)
        if let amount, !DumpRowMapper.isDecimal(amount) {
            throw fail("amount \(quotedValue(amount)) is not a decimal number")
        }
        // Money is summed exactly; an amount past what that holds is not a price.
        if let amount, DecimalAmount(amount) == nil {
            throw fail("amount \(quotedValue(amount)) has more than 12 whole digits or 6 decimals")
        }
        var currency = v.text(.currency)
        if let text = currency {
            let upper = text.uppercased()
            guard upper.utf8.count == 3, upper.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
                throw fail("currency \(quotedValue(text)) is not a three-letter code")
            }
            currency = upper
        }
        var consumed: ConsumedShare?
        if let text = v.text(.consumed) {
            guard let c = ConsumedShare(dumpText: text) else {
                throw fail(
                    "consumed \(quotedValue(text)) is not a fraction from 0 to 1 or a percentage from 0% to 100%")
            }
            consumed = c
        }
        var consent: OrderConsent?
        if let text = v.text(.consent) {
            guard let c = OrderConsent(dumpText: text) else {
                throw fail("consent \(quotedValue(text)) is not yes or no")
            }
            consent = c
        }
        return OrderRow(
            orderID: orderID, userID: userID, createdAt: createdAt, platform: platform,
            itemID: itemID, productID: productID, transactionID: v.text(.transactionID),
            amount: amount, currency: currency, status: status, environment: environment,
            receipt: v.text(.receipt), consumed: consumed, consent: consent, location: record.location)
    }

    public func receiptRow(_ record: DumpRecord) throws(UnreadableRecord) -> ReceiptRow {
        let v = columns(of: record)
        guard let orderID = v.text(.orderID) else {
            throw UnreadableRecord(location: record.location, reason: "missing order_id")
        }
        guard let receipt = v.text(.receipt) else {
            throw UnreadableRecord(location: record.location, reason: "missing receipt")
        }
        let receivedAt = try v.timestamp(.receivedAt).get()
        return ReceiptRow(orderID: orderID, receipt: receipt, receivedAt: receivedAt, location: record.location)
    }

    /// Each column's value: the first of its fields that is not null or empty.
    private func columns(of record: DumpRecord) -> ColumnValues {
        var values = ColumnValues(location: record.location, fields: record.fields)
        for i in record.fields.indices {
            guard let column = column(at: i, named: record.fields[i].name) else { continue }
            values.offer(i, for: column)
        }
        return values
    }

    /// The names of the last record's first fields and their columns: records of one dump
    /// name their fields alike, and comparing a name with the last one at its place is far
    /// cheaper than hashing it.
    @exclusivity(unchecked) private var lastNames: [String] = []
    @exclusivity(unchecked) private var lastColumns: [DumpColumn?] = []
    private static let rememberedPlaces = 64

    private func column(at place: Int, named name: String) -> DumpColumn? {
        if place < lastNames.count, lastNames[place] == name { return lastColumns[place] }
        let column = column(named: name)
        if place < lastNames.count {
            lastNames[place] = name
            lastColumns[place] = column
        } else if place == lastNames.count, place < DumpRowMapper.rememberedPlaces {
            lastNames.append(name)
            lastColumns.append(column)
        }
        return column
    }

    private func column(named name: String) -> DumpColumn? {
        if let known = columnByName[name] { return known }
        let column = DumpColumn.matching(name)
        if columnByName.count < DumpRowMapper.maxRememberedNames { columnByName[name] = column }
        return column
    }

    /// `4.99`, `-1`, `0.5`: digits, at most one point with digits on both sides, an
    /// optional minus; no exponent, no thousands separator.
    static func isDecimal(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == 0x2D { bytes = bytes.dropFirst() }
        guard !bytes.isEmpty, bytes.count <= 40 else { return false }
        let parts = bytes.split(separator: 0x2E, maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }
}

/// The value each column found in one record: the index of its field, kept inline (an array
/// of values made and freed per record was a measurable share of reading a dump).
private struct ColumnValues {
    let location: SourceLocation
    private let fields: [DumpField]
    /// A field index per column (16 places: DumpColumn has 15); -1 when the column has no value.
    private var chosen = InlineArray<16, Int32>(repeating: -1)

    init(location: SourceLocation, fields: [DumpField]) {
        self.location = location
        self.fields = fields
    }

    mutating func offer(_ index: Int, for column: DumpColumn) {
        guard chosen[column.rawValue] < 0 else { return }
        switch fields[index].value {
        case .null: return
        case .text(let t): if isBlank(t) { return }
        case .timestamp: break
        }
        chosen[column.rawValue] = Int32(truncatingIfNeeded: index)
    }

    private func value(_ column: DumpColumn) -> DumpValue? {
        let index = Int(chosen[column.rawValue])
        return index < 0 ? nil : fields[index].value
    }

    /// The column as text, trimmed; nil when absent.
    func text(_ column: DumpColumn) -> String? {
        switch value(column) {
        case .text(let t): return trim(t)
        case .timestamp(let t): return t.iso8601
        case .null, .none: return nil
        }
    }

    /// The column as a time: a mongo `$date`, or text in any form `Timestamp.parse` reads;
    /// nil when absent.
    func timestamp(_ column: DumpColumn) -> Result<Timestamp?, UnreadableRecord> {
        switch value(column) {
        case .timestamp(let t): return .success(t)
        case .text(let t):
            guard let parsed = Timestamp.parse(t) else {
                return .failure(
                    UnreadableRecord(
                        location: location,
                        reason: "\(column.contractName) \(quotedValue(trim(t))) is not a timestamp"))
            }
            return .success(parsed)
        case .null, .none:
            return .success(nil)
        }
    }
}

/// Empty or only whitespace.
private func isBlank(_ text: String) -> Bool {
    text.utf8.allSatisfy(ByteSearch.isSpace)
}

private func trim(_ text: String) -> String {
    // Read from the string's own bytes: `utf8.last` walks back through a slow index.
    let padded =
        text.utf8.withContiguousStorageIfAvailable { b in
            guard let first = b.first, let last = b.last else { return false }
            return ByteSearch.isSpace(first) || ByteSearch.isSpace(last)
        } ?? (text.utf8.first.map(ByteSearch.isSpace) == true || text.utf8.last.map(ByteSearch.isSpace) == true)
    guard padded else { return text }
    var s = Substring(text)
    while let c = s.utf8.first, ByteSearch.isSpace(c) { s = s.dropFirst() }
    while let c = s.utf8.last, ByteSearch.isSpace(c) { s = s.dropLast() }
    return String(s)
}

/// A value shown in a reason: JSON-quoted (control characters escaped), cut at 40 characters.
public func quotedValue(_ text: String) -> String {
    let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return JSONValue.string(cut).jsonText
}
