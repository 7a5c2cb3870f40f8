import Decompression
import DumpFormats
import IAPBasics

/// Reads one store report's text (a CSV or tab-separated file, whatever its encoding) as
/// typed rows, streaming: the header is the first line that names a known report kind
/// (lines before it are preamble); `Total_*` footer rows are skipped; each data row is an
/// event, an ignored row (app sales, Google fees and taxes), or a skipped row with its
/// file, line and reason. Columns are found by name through `ReportColumn`'s aliases,
/// never by position.
public final class StoreReportReader {
    public let file: String
    public let kind: ReportKind
    private let rows: DelimitedRows
    private let columns: [ReportColumn: Int]
    private let headerCount: Int
    /// Data rows read so far (events, ignored and skipped; not preamble, header or totals).
    public private(set) var dataRows = 0

    /// Lines searched for a header before the file is declared not a store report.
    public static let maxPreambleLines = 50

    /// `file` names the text in messages (a path, or `archive.zip/entry.csv`).
    public init(
        stream: ByteStream, file: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard
    ) throws(InputError) {
        self.file = file
        rows = try DelimitedRows(
            stream: TextDecodingStream(source: stream), path: file, limits: limits, buffers: buffers)
        var firstLine: String?
        var seen = 0
        while try rows.next() {
            seen += 1
            var names: [String] = []
            if rows.problem == nil {
                for i in 0..<rows.fieldCount {
                    if case .success(let text)? = rows.cell(i) { names.append(text) } else { names.append("") }
                }
            }
            if firstLine == nil { firstLine = String(names.joined(separator: ",").prefix(80)) }
            if let (kind, columns) = ReportKind.recognise(names.map(ReportColumn.normalised)) {
                self.kind = kind
                self.columns = columns
                headerCount = rows.fieldCount
                return
            }
            guard seen < StoreReportReader.maxPreambleLines else { break }
        }
        throw InputError(
            path: file,
            reason: "not a store report: no Google Play sales or earnings header and no Apple Sales Summary header "
                + "in the first \(seen) line(s)" + (firstLine.map { " (first line: \($0))" } ?? " (the file is empty)"),
            code: "not-a-store-report")
    }

    /// The next data row; nil at the end of the report.
    public func next() throws(InputError) -> ReportItem? {
        while try rows.next() {
            if isTotal() { continue }
            dataRows += 1
            let location = SourceLocation(file: file, line: rows.line)
            switch readRow(location) {
            case .success(let item): return item
            case .failure(let reason): return .skipped(SkippedRow(file: file, line: rows.line, reason: reason.text))
            }
        }
        return nil
    }

    /// `Total_Rows`, `Total_Amount`, `Total_Units` …: footers, not data.
    private func isTotal() -> Bool {
        guard case .success(let first)? = rows.cell(0) else { return false }
        // Most rows start with an order number or a provider: decided on the first letter.
        guard let initial = first.utf8.first(where: { $0 != 0x20 && $0 != 0x09 }), initial | 0x20 == 0x74 else {
            return false
        }
        let trimmed = first.trimmed.lowercased()
        return trimmed.hasPrefix("total_") || trimmed == "total" || trimmed == "totals"
    }

    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    private func text(_ column: ReportColumn) throws(Reason) -> String? {
        guard let i = columns[column] else { return nil }
        switch rows.cell(i) {
        case .success(let t)?:
            let trimmed = t.trimmed
            return trimmed.isEmpty ? nil : trimmed
        case .failure(let invalid)?: throw Reason("invalid text at byte \(invalid.offset)")
        case nil: return nil
        }
    }

    private func required(_ column: ReportColumn, _ name: String) throws(Reason) -> String {
        guard let value = try text(column) else { throw Reason("missing \(name)") }
        return value
    }

    private func amount(_ column: ReportColumn, _ name: String) throws(Reason) -> DecimalAmount {
        let raw = try required(column, name)
        guard let value = DecimalAmount(raw.hasPrefix("+") ? String(raw.dropFirst()) : raw) else {
            throw Reason("\(name) '\(raw.prefix(40))' is not a decimal amount")
        }
        return value
    }

    private func currency(_ column: ReportColumn, _ name: String) throws(Reason) -> String {
        let raw = try required(column, name)
        guard raw.utf8.count == 3, raw.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw Reason("\(name) '\(raw.prefix(40))' is not a three-letter currency code")
        }
        return raw.uppercased()
    }

    private func readRow(_ location: SourceLocation) -> Result<ReportItem, Reason> {
        if let problem = rows.problem { return .failure(Reason(problem)) }
        guard rows.fieldCount == headerCount else {
            return .failure(Reason("row has \(rows.fieldCount) cells, the header has \(headerCount)"))
        }
        do {
            switch kind {
            case .googleSales: return .success(try googleSale(location))
            case .googleEarnings: return .success(try googleEarning(location))
            case .appleSalesSummary: return .success(try appleSummary(location))
            }
        } catch {
            return .failure(error)
        }
    }

    /// `Financial Status`: Charged / Charge / CHARGED, Refund / Refunded / REFUNDED (any case
    /// and tense); a chargeback returns the money too.
    static func action(status: String) -> StoreReportRow.Action? {
        if status == "Charged" { return .charge }
        if status == "Refund" { return .refund }
        let s = ReportColumn.normalised(status)
        if s.hasPrefix("refund") || s.hasPrefix("chargeback") || s.hasPrefix("chargedback") { return .refund }
        if s.hasPrefix("charge") { return .charge }
        return nil
    }

    private func googleSale(_ location: SourceLocation) throws(Reason) -> ReportItem {
        let order = try required(.orderNumber, "Order Number")
        let status = try required(.financialStatus, "Financial Status")
        guard let action = StoreReportReader.action(status: status) else {
            throw Reason("unknown Financial Status '\(status.prefix(40))'")
        }
        let day: Int
        if let stamp = try text(.chargedTimestamp) {
            guard let t = ReportDates.instant(stamp) else {
                throw Reason("Order Charged Timestamp '\(stamp.prefix(40))' is not a time")
            }
            day = CalendarDay.utc(t)
        } else {
            let date = try required(.chargedDate, "Order Charged Timestamp")
            guard let d = CalendarDay.parse(date) else {
                throw Reason("Order Charged Date '\(date.prefix(40))' is not a date")
            }
            day = d
        }
        return .event(
            StoreReportRow(
                kind: kind, action: action, orderID: order, appID: try text(.packageName),
                productID: try required(.skuID, "SKU ID"), day: day,
                currency: try currency(.currencyOfSale, "Currency of Sale"),
                amount: try amount(.chargedAmount, "Charged Amount"),
                units: action == .charge ? 1 : -1, location: location))
    }

    private func googleEarning(_ location: SourceLocation) throws(Reason) -> ReportItem {
        let type = ReportColumn.normalised(try required(.transactionType, "Transaction Type"))
        let action: StoreReportRow.Action
        switch type {
        case "charge": action = .charge
        case "chargerefund": action = .refund
        default: return .ignored  // Google fee, Google fee refund, tax lines
        }
        let order = try required(.description, "Description")
        let date = try required(.transactionDate, "Transaction Date")
        let time = try text(.transactionTime) ?? ""
        guard let t = ReportDates.earnings(date: date, time: time) else {
            throw Reason("Transaction Date and Time '\(date.prefix(30)) \(time.prefix(20))' are not a time")
        }
        return .event(
            StoreReportRow(
                kind: kind, action: action, orderID: order, appID: try text(.packageName),
                productID: try required(.skuID, "Sku Id"), day: CalendarDay.utc(t),
                currency: try currency(.buyerCurrency, "Buyer Currency"),
                amount: try amount(.buyerAmount, "Amount (Buyer Currency)"),
                units: action == .charge ? 1 : -1, location: location))
    }

    /// In-app product types (reference §4.1): IA1, IA9, IAY, IAC, FI1, and their `-M` (Mac) forms.
    static func isInApp(_ productType: String) -> Bool {
        var t = productType.uppercased()
        if t.hasSuffix("-M") { t.removeLast(2) }
        return ["IA1", "IA9", "IAY", "IAC", "FI1"].contains(t)
    }

    private func appleSummary(_ location: SourceLocation) throws(Reason) -> ReportItem {
        guard StoreReportReader.isInApp(try required(.productTypeIdentifier, "Product Type Identifier")) else {
            return .ignored
        }
        let units = try amount(.units, "Units")
        guard units.micros % 1_000_000 == 0 else { throw Reason("Units '\(units)' is not a whole number") }
        let begin = try required(.beginDate, "Begin Date")
        guard let day = ReportDates.usDate(begin) else {
            throw Reason("Begin Date '\(begin.prefix(40))' is not MM/DD/YYYY")
        }
        if let end = try text(.endDate) {
            guard let endDay = ReportDates.usDate(end) else {
                throw Reason("End Date '\(end.prefix(40))' is not MM/DD/YYYY")
            }
            guard endDay == day else { throw Reason("not a daily row: Begin Date \(begin), End Date \(end)") }
        }
        let count = units.micros / 1_000_000
        let price = try amount(.customerPrice, "Customer Price")
        return .event(
            StoreReportRow(
                kind: kind, action: count < 0 ? .refund : .charge, orderID: nil, appID: nil,
                productID: try required(.sku, "SKU"), day: day,
                currency: try currency(.customerCurrency, "Customer Currency"),
                amount: price.multiplied(by: count), units: count, location: location))
    }
}

extension String {
    /// Without surrounding spaces and tabs.
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
