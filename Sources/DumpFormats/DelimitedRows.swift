import Decompression
import IAPBasics

/// Rows of CSV or TSV text read one at a time, without a header: each row's cells, the line
/// it starts at and what is wrong with it. For readers that find their header themselves
/// (store reports, whose header may follow a preamble). RFC 4180 quoting as
/// `DelimitedScanner` reads it; no backslash escapes; blank lines skipped; memory is one
/// chunk plus the row being read, capped by `Limits`.
public final class DelimitedRows {
    public let path: String
    /// `,` or tab, judged from the first lines.
    public let delimiter: UInt8
    private let buffer: RecordBuffer
    private var scanner: DelimitedScanner
    private let limits: Limits
    private var pendingBytes = 0
    private var nextLine = 1
    /// The current row: the 1-based line it starts at, its cell count, and why it cannot be
    /// read (too long, an unclosed quote, …), or nil.
    public private(set) var line = 0
    public private(set) var fieldCount = 0
    public private(set) var problem: String?

    public init(
        stream: ByteStream, path: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard
    ) throws(InputError) {
        self.path = path
        self.limits = limits
        buffer = RecordBuffer(stream: stream, buffers: buffers)
        try buffer.fill(toAtLeast: 64 << 10)
        delimiter = DelimitedRows.sniffDelimiter(buffer.unconsumed)
        scanner = DelimitedScanner(delimiter: delimiter, limits: limits)
    }

    /// Tab when the first ten lines hold more tabs than commas, else comma.
    static func sniffDelimiter(_ head: UnsafeRawBufferPointer) -> UInt8 {
        var tabs = 0
        var commas = 0
        var lines = 0
        for byte in head {
            switch byte {
            case 0x09: tabs += 1
            case 0x2C: commas += 1
            case 0x0A:
                lines += 1
                if lines == 10 { return tabs > commas ? 0x09 : 0x2C }
            default: continue
            }
        }
        return tabs > commas ? 0x09 : 0x2C
    }

    /// Moves to the next row that is not blank; false at the end of the input.
    public func next() throws(InputError) -> Bool {
        while true {
            buffer.consume(pendingBytes)
            pendingBytes = 0
            guard let record = try scanner.scan(buffer) else { return false }
            line = nextLine
            nextLine += 1 + record.innerLineBreaks
            pendingBytes = record.byteCount
            if record.fieldCount == 1, !record.tooLong, !record.unclosedQuote, let only = scanner.spans.first,
                !only.quoted, only.begin == only.end
            {
                continue
            }
            fieldCount = record.fieldCount
            if record.tooLong {
                problem = "row is longer than \(limits.maxRecordBytes) bytes"
            } else if record.unclosedQuote {
                problem = "unclosed quote"
            } else if record.textAfterQuote {
                problem = "text after a closing quote"
            } else if record.fieldCount > limits.maxFields {
                problem = "row has more than \(limits.maxFields) fields"
            } else {
                problem = nil
            }
            return true
        }
    }

    /// A cell that is not valid UTF-8, with the offset of its first bad byte in the row.
    public struct InvalidText: Error, Sendable {
        public var offset: Int
    }

    /// The text of cell `index` of the current row (empty for an empty cell); nil past the
    /// row's last cell or in a row that has a problem.
    public func cell(_ index: Int) -> Result<String, InvalidText>? {
        guard problem == nil, index >= 0, index < scanner.spans.count else { return nil }
        switch DelimitedRecordReader.value(scanner.spans[index], in: buffer, backslashEscapes: false) {
        case .success(.text(let text)): return .success(text)
        case .success: return .success("")
        case .failure(let invalid): return .failure(InvalidText(offset: invalid.offset))
        }
    }
}
