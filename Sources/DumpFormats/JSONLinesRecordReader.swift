import Decompression
import IAPBasics
import JSONText

/// JSON Lines (jsonlines.org, and mongoexport's default output): one JSON object per line,
/// LF or CRLF; blank lines skipped. Each top-level member is a field, its value converted
/// by `ExtendedJSON`. A line that is not one JSON object is a malformed item with its line
/// and the byte offset JSONParser reports; the next line is read as usual.
final class JSONLinesRecordReader: RecordSource {
    private let buffer: RecordBuffer
    private let path: String
    private let limits: Limits
    private let lineLimits: Limits
    private var nextLine = 1
    private var ordinal = 0

    init(buffer: RecordBuffer, path: String, limits: Limits) {
        self.buffer = buffer
        self.path = path
        self.limits = limits
        var lineLimits = limits
        lineLimits.maxPayloadBytes = max(limits.maxPayloadBytes, limits.maxRecordBytes)
        self.lineLimits = lineLimits
    }

    func next() throws(InputError) -> DumpItem? {
        while let (length, tooLong) = try nextLineLength() {
            let line = nextLine
            nextLine += 1
            defer { buffer.consume(length + 1) }
            let location = SourceLocation(file: path, line: line)
            if tooLong {
                ordinal += 1
                return .malformed(UnreadableRecord(location: location, reason: "line is longer than \(limits.maxRecordBytes) bytes"))
            }
            let (text, indent) = trimmed(UnsafeRawBufferPointer(start: buffer.base + buffer.start, count: length))
            if text.isEmpty { continue }
            ordinal += 1
            switch parse(text, indent: indent, location) {
            case .success(let fields): return .record(DumpRecord(location: location, ordinal: ordinal, fields: fields))
            case .failure(let malformed): return .malformed(malformed)
            }
        }
        return nil
    }

    /// The length of the next line at `buffer.start` (without its LF), or nil at the end.
    /// A line past the cap is dropped as it is read and reported as too long.
    private func nextLineLength() throws(InputError) -> (Int, Bool)? {
        var searched = 0
        var tooLong = false
        while true {
            if let lf = ByteSearch.firstIndex(of: 0x0A, in: buffer.base, from: buffer.start + searched, to: buffer.end) {
                return (lf - buffer.start, tooLong || (lf - buffer.start) > limits.maxRecordBytes)
            }
            searched = buffer.end - buffer.start
            if searched > limits.maxRecordBytes {
                tooLong = true
                buffer.discardAll()
                searched = 0
            }
            guard try buffer.fill() else {
                let rest = buffer.end - buffer.start
                return rest == 0 && !tooLong ? nil : (rest, tooLong)
            }
        }
    }

    /// The line without surrounding whitespace (CR included), and how much was cut in front.
    private func trimmed(_ bytes: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer, Int) {
        var lower = 0
        var upper = bytes.count
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }
        while lower < upper, isSpace(bytes[lower]) { lower += 1 }
        while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
        return (UnsafeRawBufferPointer(rebasing: bytes[lower..<upper]), lower)
    }

    private func parse(_ text: UnsafeRawBufferPointer, indent: Int,
                       _ location: SourceLocation) -> Result<[DumpField], UnreadableRecord> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text, limits: lineLimits)
        } catch {
            return .failure(UnreadableRecord(location: location,
                                            reason: "bad JSON at byte \(error.offset + indent): \(error.reason)"))
        }
        guard case .object(let object) = value else {
            return .failure(UnreadableRecord(location: location, reason: "line is \(ExtendedJSON.kind(of: value)), not a JSON object"))
        }
        guard object.members.count <= limits.maxFields else {
            return .failure(UnreadableRecord(location: location, reason: "object has more than \(limits.maxFields) fields"))
        }
        return .success(object.members.map { DumpField(name: $0.key, value: ExtendedJSON.dumpValue($0.value)) })
    }
}
