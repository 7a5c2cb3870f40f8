import Decompression
import IAPBasics
import JSONText

/// JSON Lines (jsonlines.org, and mongoexport's default output): one JSON object per line,
/// LF or CRLF; blank lines skipped. Each top-level member is a field, its value converted
/// by `ExtendedJSON`. A line that is not one JSON object is a malformed item with its line
/// and the byte offset JSONParser reports; the next line is read as usual.
final class JSONLinesRecordReader: RecordSource {
    private let buffer: RecordBuffer
    private let lines: LineSplitter
    private let path: String
    private let limits: Limits
    private let lineLimits: Limits
    private var nextLine = 1
    private var ordinal = 0

    init(buffer: RecordBuffer, path: String, limits: Limits) {
        self.buffer = buffer
        lines = LineSplitter(buffer: buffer, maxBytes: limits.maxRecordBytes)
        self.path = path
        self.limits = limits
        var lineLimits = limits
        lineLimits.maxPayloadBytes = max(limits.maxPayloadBytes, limits.maxRecordBytes)
        self.lineLimits = lineLimits
    }

    func read(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        while let (length, tooLong) = try lines.nextLineLength() {
            let line = nextLine
            nextLine += 1
            defer { buffer.consume(length + 1) }
            let location = SourceLocation(file: path, line: line)
            if tooLong {
                ordinal += 1
                return .item(
                    .malformed(
                        UnreadableRecord(
                            location: location, reason: "line is longer than \(limits.maxRecordBytes) bytes")),
                    ownID: false)
            }
            let (text, indent) = LineSplitter.trimmed(
                UnsafeRawBufferPointer(start: buffer.base + buffer.start, count: length))
            if text.isEmpty { continue }
            ordinal += 1
            var ownID = false
            if let shard, let id = JSONOrderIDSkim.orderID(in: text, maxDepth: limits.maxDepth) {
                guard shard.owns(utf8: id) else { return .elsewhere }
                ownID = true
            }
            switch parse(text, indent: indent, location) {
            case .success(let fields):
                return .item(.record(DumpRecord(location: location, ordinal: ordinal, fields: fields)), ownID: ownID)
            case .failure(let malformed): return .item(.malformed(malformed), ownID: ownID)
            }
        }
        return nil
    }

    private func parse(
        _ text: UnsafeRawBufferPointer, indent: Int,
        _ location: SourceLocation
    ) -> Result<[DumpField], UnreadableRecord> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text, limits: lineLimits)
        } catch {
            return .failure(
                UnreadableRecord(
                    location: location,
                    reason: "bad JSON at byte \(error.offset + indent): \(error.reason)"))
        }
        guard case .object(let object) = value else {
            return .failure(
                UnreadableRecord(
                    location: location, reason: "line is \(ExtendedJSON.kind(of: value)), not a JSON object"))
        }
        guard object.members.count <= limits.maxFields else {
            return .failure(
                UnreadableRecord(location: location, reason: "object has more than \(limits.maxFields) fields"))
        }
        return .success(object.members.map { DumpField(name: $0.key, value: ExtendedJSON.dumpValue($0.value)) })
    }
}
