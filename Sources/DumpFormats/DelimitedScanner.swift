import Decompression
import IAPBasics

/// Where one field lies in a scanned record, relative to the record's first byte.
struct FieldSpan {
    /// The content (inside the quotes for a quoted field).
    var begin: Int
    var end: Int
    var quoted: Bool
    /// A quoted field with `""` inside, to be unescaped.
    var hasDoubledQuotes: Bool
}

/// What the scanner found for one record; its bytes start at `RecordBuffer.start`.
struct ScannedRecord {
    /// Bytes to consume, the line break included.
    var byteCount = 0
    /// Line breaks inside quoted fields: the record spans `1 + innerLineBreaks` lines.
    var innerLineBreaks = 0
    var fieldCount = 0
    var unclosedQuote = false
    var textAfterQuote = false
    var tooLong = false
}

/// Finds records and fields of RFC 4180 text in one pass, resuming across refills.
///
/// RFC 4180 §2: records end with a line break (CRLF; LF accepted); fields are separated by
/// the delimiter; a field may be enclosed in double quotes, and then may hold delimiters,
/// line breaks and quotes written twice (`""`). A quote inside an unquoted field is kept as
/// it is (lenient, as PostgreSQL and spreadsheets write it). Past `Limits.maxRecordBytes`
/// the record's bytes are dropped as they are scanned and it is reported too long.
struct DelimitedScanner {
    private enum State { case fieldStart, unquoted, quoted, quoteSeen, afterQuote }

    private static let quote: UInt8 = 0x22
    private static let lineFeed: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D

    let delimiter: UInt8
    let limits: Limits
    /// Spans of the last record (up to `maxFields + 1`), reused between records.
    private(set) var spans: [FieldSpan] = []

    init(delimiter: UInt8, limits: Limits) {
        self.delimiter = delimiter
        self.limits = limits
    }

    /// The next record, or nil at the end of the input.
    mutating func scan(_ buffer: RecordBuffer) throws(InputError) -> ScannedRecord? {
        spans.removeAll(keepingCapacity: true)
        var record = ScannedRecord()
        var state = State.fieldStart
        var position = 0
        var fieldBegin = 0
        var quoteAt = 0
        var doubled = false
        let delimiter = self.delimiter
        let quote = DelimitedScanner.quote
        let lineFeed = DelimitedScanner.lineFeed

        while true {
            let base = buffer.base
            let origin = buffer.start
            let limit = buffer.end
            var i = origin + position
            scanning: while i < limit {
                switch state {
                case .fieldStart:
                    fieldBegin = i - origin
                    doubled = false
                    if base[i] == quote {
                        state = .quoted
                        i += 1
                    } else {
                        state = .unquoted
                    }
                case .unquoted:
                    i = ByteSearch.firstIndex(of: delimiter, or: lineFeed, in: base, from: i, to: limit)
                    guard i < limit else { break scanning }
                    let atLineEnd = base[i] == lineFeed
                    var fieldEnd = i - origin
                    if atLineEnd, fieldEnd > fieldBegin, base[i - 1] == DelimitedScanner.carriageReturn {
                        fieldEnd -= 1
                    }
                    close(&record, fieldBegin, fieldEnd, quoted: false, doubled: false)
                    i += 1
                    if atLineEnd { return finish(record, byteCount: i - origin) }
                    state = .fieldStart
                case .quoted:
                    i = ByteSearch.firstIndex(of: quote, or: lineFeed, in: base, from: i, to: limit)
                    while i < limit, base[i] == lineFeed {
                        record.innerLineBreaks += 1
                        i = ByteSearch.firstIndex(of: quote, or: lineFeed, in: base, from: i + 1, to: limit)
                    }
                    guard i < limit else { break scanning }
                    quoteAt = i - origin
                    state = .quoteSeen
                    i += 1
                case .quoteSeen:
                    if base[i] == quote {
                        doubled = true
                        state = .quoted
                        i += 1
                    } else {
                        state = .afterQuote
                    }
                case .afterQuote:
                    let c = base[i]
                    i += 1
                    if c == delimiter || c == lineFeed {
                        close(&record, fieldBegin + 1, quoteAt, quoted: true, doubled: doubled)
                        if c == lineFeed { return finish(record, byteCount: i - origin) }
                        state = .fieldStart
                    } else if c != DelimitedScanner.carriageReturn {
                        record.textAfterQuote = true
                    }
                }
            }
            position = i - origin
            if position > limits.maxRecordBytes {
                // Too long to keep: drop what is scanned, keep only the state.
                record.tooLong = true
                spans.removeAll(keepingCapacity: true)
                buffer.discardAll()
                position = 0
                fieldBegin = 0
                quoteAt = 0
            }
            guard try buffer.fill() else {
                return finishAtEnd(
                    record, state: state, position: position, fieldBegin: fieldBegin,
                    quoteAt: quoteAt, doubled: doubled, buffer: buffer)
            }
        }
    }

    private mutating func finishAtEnd(
        _ record: ScannedRecord, state: State, position: Int, fieldBegin: Int,
        quoteAt: Int, doubled: Bool, buffer: RecordBuffer
    ) -> ScannedRecord? {
        var record = record
        switch state {
        case .fieldStart:
            // Nothing at all since the last record: the clean end of the file.
            if position == 0, record.fieldCount == 0, !record.tooLong { return nil }
            close(&record, position, position, quoted: false, doubled: false)
        case .unquoted:
            var fieldEnd = position
            if fieldEnd > fieldBegin, buffer.base[buffer.start + fieldEnd - 1] == DelimitedScanner.carriageReturn {
                fieldEnd -= 1
            }
            close(&record, fieldBegin, fieldEnd, quoted: false, doubled: false)
        case .quoted:
            record.unclosedQuote = true
        case .quoteSeen, .afterQuote:
            close(&record, fieldBegin + 1, quoteAt, quoted: true, doubled: doubled)
        }
        return finish(record, byteCount: position)
    }

    private mutating func close(_ record: inout ScannedRecord, _ begin: Int, _ end: Int, quoted: Bool, doubled: Bool) {
        record.fieldCount += 1
        guard !record.tooLong, record.fieldCount <= limits.maxFields + 1 else { return }
        spans.append(FieldSpan(begin: begin, end: end, quoted: quoted, hasDoubledQuotes: doubled))
    }

    private func finish(_ record: ScannedRecord, byteCount: Int) -> ScannedRecord {
        var record = record
        record.byteCount = byteCount
        if byteCount > limits.maxRecordBytes { record.tooLong = true }
        return record
    }
}
