import Decompression
import IAPBasics
import JSONText

/// CSV and TSV with a header row (PostgreSQL `COPY … CSV HEADER`, MySQL and spreadsheet
/// exports). Both read RFC 4180 quoting (see `DelimitedScanner`); then, per field:
/// - an unquoted empty field and an unquoted `\N` are NULL (PostgreSQL and MySQL mark
///   NULL so); a quoted `""` is the empty string;
/// - TSV only: an unquoted field decodes the backslash escapes of PostgreSQL's COPY text
///   format and `mysql --batch` (`\\` `\t` `\n` `\r` `\0` …), since those are the tools
///   that write tab-separated dumps.
/// Blank lines are skipped. A record that cannot be read is a malformed item with the line
/// where it starts; the reader goes on with the next line.
final class DelimitedRecordReader: RecordSource {
    private let buffer: RecordBuffer
    private let path: String
    private let limits: Limits
    private let backslashEscapes: Bool
    private var scanner: DelimitedScanner
    private var header: [String]? {
        didSet { orderIDColumn = header.flatMap(Self.orderIDColumn) }
    }
    /// The header's names, once it is read.
    var headerNames: [String]? { header }
    /// The one column of the header that names the order id; nil when none or several do.
    private var orderIDColumn: Int?
    private var nextLine = 1
    private var ordinal = 0

    init(buffer: RecordBuffer, path: String, limits: Limits, format: DumpFormat) {
        self.buffer = buffer
        self.path = path
        self.limits = limits
        backslashEscapes = format == .tsv
        scanner = DelimitedScanner(delimiter: format == .tsv ? 0x09 : 0x2C, limits: limits)
    }

    func read(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        while let record = try scanner.scan(buffer) {
            let line = nextLine
            nextLine += 1 + record.innerLineBreaks
            defer { buffer.consume(record.byteCount) }
            if isBlank(record) { continue }
            guard let header else {
                header = try readHeader(record, line: line)
                continue
            }
            ordinal += 1
            let location = SourceLocation(file: path, line: line)
            if let problem = problem(record, header: header) {
                return .item(.malformed(UnreadableRecord(location: location, reason: problem)), ownID: false)
            }
            var ownID = false
            if let shard, let id = orderID() {
                guard shard.owns(utf8: id) else { return .elsewhere }
                ownID = true
            }
            var fields: [DumpField] = []
            fields.reserveCapacity(header.count)
            for (name, span) in zip(header, scanner.spans) {
                switch value(span) {
                case .success(let v): fields.append(DumpField(name: name, value: v))
                case .failure(let invalid):
                    return .item(
                        .malformed(
                            UnreadableRecord(location: location, reason: "invalid UTF-8 at byte \(invalid.offset)")),
                        ownID: ownID)
                }
            }
            return .item(.record(DumpRecord(location: location, ordinal: ordinal, fields: fields)), ownID: ownID)
        }
        return nil
    }

    /// The scanned record's order id as the mapper would read it, when the header has one
    /// column for it and the field needs no decoding (see `OrderIDBytes.plain`).
    private func orderID() -> UnsafeRawBufferPointer? {
        guard let column = orderIDColumn, column < scanner.spans.count else { return nil }
        let span = scanner.spans[column]
        guard !span.hasDoubledQuotes else { return nil }
        let bytes = UnsafeRawBufferPointer(start: buffer.base + buffer.start + span.begin, count: span.end - span.begin)
        // Unquoted `\N` is NULL; `OrderIDBytes.plain` refuses any backslash (TSV escapes too).
        return OrderIDBytes.plain(bytes)
    }

    private static func orderIDColumn(_ header: [String]) -> Int? {
        let columns = header.indices.filter { DumpColumn.matching(header[$0]) == .orderID }
        return columns.count == 1 ? columns.first : nil
    }

    private func isBlank(_ record: ScannedRecord) -> Bool {
        guard record.fieldCount == 1, !record.tooLong, !record.unclosedQuote, let only = scanner.spans.first else {
            return false
        }
        return !only.quoted && only.begin == only.end
    }

    private func problem(_ record: ScannedRecord, header: [String]) -> String? {
        if record.tooLong { return "record is longer than \(limits.maxRecordBytes) bytes" }
        if record.unclosedQuote { return "unclosed quote" }
        if record.textAfterQuote { return "text after a closing quote" }
        if record.fieldCount > limits.maxFields { return "row has more than \(limits.maxFields) fields" }
        if record.fieldCount != header.count {
            return "row has \(record.fieldCount) fields, header has \(header.count)"
        }
        return nil
    }

    /// The header names every column; a file whose header cannot be read cannot be read.
    private func readHeader(_ record: ScannedRecord, line: Int) throws(InputError) -> [String] {
        let problem: String?
        if record.tooLong {
            problem = "is longer than \(limits.maxRecordBytes) bytes"
        } else if record.unclosedQuote {
            problem = "has an unclosed quote"
        } else if record.fieldCount > limits.maxFields {
            problem = "has more than \(limits.maxFields) fields"
        } else {
            problem = nil
        }
        if let problem {
            throw InputError(path: path, reason: "header line \(line) \(problem)", code: "bad-header")
        }
        var names: [String] = []
        for span in scanner.spans {
            switch value(span) {
            case .success(.text(let name)): names.append(name)
            case .success: names.append("")
            case .failure(let invalid):
                throw InputError(
                    path: path, reason: "header line \(line): invalid UTF-8 at byte \(invalid.offset)",
                    code: "bad-header")
            }
        }
        return names
    }

    private func value(_ span: FieldSpan) -> Result<DumpValue, InvalidUTF8> {
        DelimitedRecordReader.value(span, in: buffer, backslashEscapes: backslashEscapes)
    }

    /// A field's value, or the offset (in the record) of its first byte that breaks UTF-8.
    static func value(_ span: FieldSpan, in buffer: RecordBuffer, backslashEscapes: Bool) -> Result<
        DumpValue, InvalidUTF8
    > {
        let bytes = UnsafeBufferPointer(start: buffer.base + buffer.start + span.begin, count: span.end - span.begin)
        if !span.quoted {
            if bytes.isEmpty { return .success(.null) }
            if bytes.count == 2, bytes[0] == 0x5C, bytes[1] == 0x4E { return .success(.null) }
        }
        // ASCII (ids, base64 receipts) is valid as it is; only other text needs the check.
        let text: String
        if ByteSearch.isASCII(bytes) {
            text = String(decoding: bytes, as: UTF8.self)
        } else if let valid = String(validating: bytes, as: UTF8.self) {
            text = valid
        } else {
            return .failure(InvalidUTF8(offset: span.begin + invalidUTF8Offset(UnsafeRawBufferPointer(bytes))))
        }
        if span.hasDoubledQuotes { return .success(.text(DelimitedRecordReader.undoubleQuotes(bytes))) }
        if !span.quoted, backslashEscapes, bytes.contains(0x5C) {
            return .success(.text(DelimitedRecordReader.decodeBackslashes(bytes)))
        }
        return .success(.text(text))
    }

    struct InvalidUTF8: Error {
        var offset: Int
    }

    /// `""` inside a quoted field is one `"` (RFC 4180 §2.7).
    static func undoubleQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            out.append(bytes[i])
            i += bytes[i] == 0x22 && i + 1 < bytes.count && bytes[i + 1] == 0x22 ? 2 : 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// PostgreSQL COPY text format and `mysql --batch`: `\\ \t \n \r \0 \b \f \v \Z`;
    /// a backslash before any other character stands for that character.
    static func decodeBackslashes(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            guard c == 0x5C, i < bytes.count else {
                out.append(c)
                continue
            }
            let e = bytes[i]
            i += 1
            switch e {
            case 0x74: out.append(0x09)  // \t
            case 0x6E: out.append(0x0A)  // \n
            case 0x72: out.append(0x0D)  // \r
            case 0x30: out.append(0x00)  // \0
            case 0x62: out.append(0x08)  // \b
            case 0x66: out.append(0x0C)  // \f
            case 0x76: out.append(0x0B)  // \v
            case 0x5A: out.append(0x1A)  // \Z
            default: out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
