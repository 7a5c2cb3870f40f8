import Decompression
import DumpFormats
import IAPBasics
import JSONText

/// Reads one `--store-events` file (docs/store-events.md), plain or gzipped, as a stream: JSON Lines
/// (each line an event, a page of events, a JWS, or a logged row whose payload column holds
/// one), one JSON document (a page written pretty), or a CSV/TSV/XML dump whose rows carry
/// the event in a payload column. The layout is told from the extension (`.csv`, `.tsv`,
/// `.xml`), else from the first line: a line that is JSON or a JWS makes JSON Lines, JSON
/// that does not end on its line makes a document (if the whole file is one JSON value),
/// anything else a dump with a header (but not in a file named `.jsonl`, `.ndjson` or
/// `.json`: there it is a bad line).
public final class StoreEventFile {
    public enum Layout: Sendable, Equatable {
        case lines, document
        case dump(DumpFormat)
    }

    /// Where the bytes come from: the file is opened once to see its first line, then again
    /// to be read (with the observer that hashes it seeing every byte once).
    public enum Source {
        case path(String, observer: FileByteStream.RawObserver?)
        case bytes([UInt8], name: String)

        var name: String {
            switch self {
            case .path(let p, _): return p
            case .bytes(_, let n): return n
            }
        }
    }

    public let path: String
    public let layout: Layout
    public let limits: Limits
    private var lines: LogLineReader?
    private var dump: DumpReader?
    private var document: [UInt8]?
    private var documentTooLong = false

    public init(_ source: Source, limits: Limits = .standard, buffers: ReadBuffers = .standard) throws(InputError) {
        path = source.name
        self.limits = limits
        layout = try StoreEventFile.layout(of: source, limits: limits, buffers: buffers)
        switch layout {
        case .lines:
            lines = try StoreEventFile.lineReader(source, limits: limits, buffers: buffers, observed: true)
        case .document:
            let reader = try StoreEventFile.lineReader(source, limits: limits, buffers: buffers, observed: true)
            if let whole = try reader.rest(maxBytes: limits.maxRecordBytes) {
                document = whole
            } else {
                document = []
                documentTooLong = true
            }
        case .dump:
            switch source {
            case .path(let p, let observer):
                dump = try DumpReader(path: p, limits: limits, buffers: buffers, rawObserver: observer)
            case .bytes(let b, let n): dump = try DumpReader(bytes: b, name: n, limits: limits, buffers: buffers)
            }
        }
    }

    /// One line, row or document, not yet parsed (so that parsing can run on any thread),
    /// or the problem of reading it.
    public enum Unit: Sendable {
        case payload([UInt8], SourceLocation)
        case problem(UnreadableRecord)
    }

    /// The events (and problems) of the next line, row or document; nil at the end.
    public func next() throws(InputError) -> StoreEventParser.Parsed? {
        switch try nextUnit() {
        case nil: return nil
        case .payload(let bytes, let location)?: return StoreEventParser.parse(bytes, at: location, limits: limits)
        case .problem(let p)?:
            var parsed = StoreEventParser.Parsed()
            parsed.problems.append(p)
            return parsed
        }
    }

    /// The next line, row or document as it stands; nil at the end. Parse it with
    /// `StoreEventParser.parse(_:at:limits:)` and this file's `limits`.
    public func nextUnit() throws(InputError) -> Unit? {
        if let lines {
            guard let line = try lines.next() else { return nil }
            let location = SourceLocation(file: path, line: line.number)
            guard !line.tooLong else { return problem(location, "line is longer than \(limits.maxRecordBytes) bytes") }
            return .payload(line.bytes, location)
        }
        if let bytes = document {
            document = nil
            let location = SourceLocation(file: path, line: 1)
            guard !documentTooLong else {
                return problem(location, "the document is longer than \(limits.maxRecordBytes) bytes")
            }
            return .payload(bytes, location)
        }
        if let dump {
            switch try dump.next() {
            case nil: return nil
            case .malformed(let m)?: return problem(m.location, m.reason)
            case .record(let r)?: return row(r)
            }
        }
        return nil
    }

    /// Raw bytes of the file read so far (for progress).
    public var rawBytesRead: Int64 { lines?.rawBytesRead ?? dump?.rawBytesRead ?? 0 }

    private func row(_ r: DumpRecord) -> Unit {
        for name in StoreEventParser.payloadColumns {
            guard let field = r.fields.last(where: { $0.name.lowercased() == name }) else { continue }
            switch field.value {
            case .text(let text): return .payload(Array(text.utf8), r.location)
            case .null, .timestamp: return problem(r.location, "the \(field.name) column holds no event")
            }
        }
        return problem(
            r.location, "no column holds the event (\(StoreEventParser.payloadColumns.joined(separator: ", ")))")
    }

    private func problem(_ location: SourceLocation, _ reason: String) -> Unit {
        .problem(UnreadableRecord(location: location, reason: reason))
    }

    private static func lineReader(
        _ source: Source, limits: Limits, buffers: ReadBuffers,
        observed: Bool
    ) throws(InputError) -> LogLineReader {
        switch source {
        case .path(let p, let observer):
            return try LogLineReader(path: p, limits: limits, buffers: buffers, rawObserver: observed ? observer : nil)
        case .bytes(let b, let n):
            return try LogLineReader(bytes: b, name: n, limits: limits, buffers: buffers)
        }
    }

    private static func layout(of source: Source, limits: Limits, buffers: ReadBuffers) throws(InputError) -> Layout {
        switch DumpFormat.byExtension(of: source.name) {
        case .csv?: return .dump(.csv)
        case .tsv?: return .dump(.tsv)
        case .xml?: return .dump(.xml)
        default: break
        }
        let first = try lineReader(source, limits: limits, buffers: buffers, observed: false).next()
        guard let line = first, !line.tooLong, let byte = line.bytes.first else { return .lines }
        // Named JSON Lines (`.jsonl`, `.ndjson`, `.json`): lines or one document, never a
        // dump, so a first line that is no event is one bad line, not a header.
        let named = DumpFormat.byExtension(of: source.name) == .jsonLines
        switch byte {
        case 0x3C: return named ? .lines : .dump(.xml)
        case 0x7B, 0x5B, 0x22:
            // JSON that ends on its line is JSON Lines; a document written over many lines is not.
            var lineLimits = limits
            lineLimits.maxPayloadBytes = max(limits.maxPayloadBytes, limits.maxRecordBytes)
            if (try? JSONParser.parse(line.bytes, limits: lineLimits)) != nil || !opensDocument(line.bytes) {
                return .lines
            }
            // A document only when the whole file is one JSON value: a first line that merely
            // starts like one (a logged webhook body `{"a":[`) must not swallow the log's events.
            let whole = try lineReader(source, limits: limits, buffers: buffers, observed: false).rest(
                maxBytes: limits.maxRecordBytes)
            guard let whole, (try? JSONParser.parse(whole, limits: lineLimits)) != nil else { return .lines }
            return .document
        default:
            if named || looksLikeJWS(line.bytes) { return .lines }
            return .dump(line.bytes.contains(0x09) && !line.bytes.contains(0x2C) ? .tsv : .csv)
        }
    }

    /// A first line that only starts a JSON value (`{`, `[`, `{"key": [`): a pretty document.
    private static func opensDocument(_ line: [UInt8]) -> Bool {
        guard let last = line.last else { return false }
        return last == 0x7B || last == 0x5B || last == 0x2C || last == 0x3A
    }

    private static func looksLikeJWS(_ line: [UInt8]) -> Bool {
        line.filter { $0 == 0x2E }.count == 2
            && line.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D
                    || b == 0x5F || b == 0x2E
            }
    }
}
