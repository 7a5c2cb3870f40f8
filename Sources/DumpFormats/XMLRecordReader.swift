import Decompression
import IAPBasics
import XMLStream

/// `mysqldump --xml` rows, pushed through `XMLDumpParser` one buffer-full at a time.
/// A row is located by its 1-based row number. A row the parser could not use (too long,
/// a nested element) is a malformed item; a document that stops being XML ends the file
/// with an `InputError` naming libxml2's line and column, after the rows before it.
final class XMLRecordReader: RecordSource {
    private let buffer: RecordBuffer
    private let path: String
    private let parser: XMLDumpParser
    private let limits: Limits
    /// A worker's: the other shards' rows it leaves unparsed (made at the first read).
    private var skim: XMLShardSkim?
    /// The whitespace that stands for a skipped row, kept from row to row.
    private var place: [UInt8] = []

    init(buffer: RecordBuffer, path: String, limits: Limits) {
        self.buffer = buffer
        self.path = path
        self.limits = limits
        parser = XMLDumpParser(limits: limits)
    }

    /// A worker leaves the other shards' rows in mysqldump's strict form unparsed
    /// (`XMLShardSkim`); the rest come out of libxml2 whole, their order id with them.
    func read(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        if let shard, skim == nil { skim = XMLShardSkim(shard: shard, limits: limits) }
        while true {
            let row: XMLDumpRow?
            do {
                row = try parser.nextRow()
            } catch {
                throw InputError(path: path, reason: "XML \(error)", code: error.code)
            }
            if let row {
                if row.isElsewhere { return .elsewhere }
                guard let shard else { return .item(item(row), ownID: false) }
                switch Self.owner(of: row, in: shard) {
                case nil: return .item(item(row), ownID: false)
                case true?: return .item(item(row), ownID: true)
                case false?: return .elsewhere
                }
            }
            if parser.isDone { return nil }
            if buffer.unconsumed.isEmpty, !(try buffer.fill()) {
                parser.finish()
                continue
            }
            guard skim != nil else {
                parser.push(buffer.unconsumed)
                buffer.discardAll()
                continue
            }
            try pushSkimming()
        }
    }

    /// Whether `shard` holds a parsed row, decided from its fields as the mapper reads the
    /// order id (the first of its names with a value there and not blank), when that id is
    /// plain; nil when it is not (the first shard reports such a row if it is malformed).
    /// Every worker decides a row alike, skimmed or parsed, so exactly one reports it.
    static func owner(of row: XMLDumpRow, in shard: ShardSpec) -> Bool? {
        for field in row.fields {
            var name = field.name
            guard let isID = name.withUTF8({ OrderIDBytes.isOrderIDName(UnsafeRawBufferPointer($0)) }) else {
                return nil
            }
            guard isID, var value = field.value else { continue }
            let verdict: Bool?? = value.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                if let plain = OrderIDBytes.plain(raw) { return .some(shard.owns(utf8: plain)) }
                return raw.allSatisfy(XMLShardSkim.isSpace) ? nil : .some(nil)
            }
            // nil: blank, and the mapper reads on; .some(nil): an id that is not plain.
            guard let verdict else { continue }
            return verdict
        }
        return nil
    }

    /// Pushes the next piece the skim finds: text and markup as they are, a strict row of
    /// another shard as the whitespace that keeps libxml2's place.
    private func pushSkimming() throws(InputError) {
        let bytes = buffer.unconsumed
        switch skim?.next(bytes, ended: buffer.exhausted) ?? .push(bytes.count) {
        case .push(let n):
            parser.push(UnsafeRawBufferPointer(rebasing: bytes[0..<min(max(n, 1), bytes.count)]))
            buffer.consume(max(n, 1))
        case .needMore:
            if !(try buffer.fill()) {
                // Ended: the skim pushes what is left on the next call.
                return
            }
        case .row(let range, let elsewhere, let newlines, let tail):
            // What stands before the row goes first: libxml2 has then read up to the row.
            if range.lowerBound > 0 { parser.push(UnsafeRawBufferPointer(rebasing: bytes[0..<range.lowerBound])) }
            if elsewhere, parser.skipRow() {
                place.removeAll(keepingCapacity: true)
                place.append(contentsOf: repeatElement(0x0A, count: newlines))
                place.append(contentsOf: repeatElement(0x20, count: tail))
                place.withUnsafeBytes { parser.push($0) }
            } else {
                parser.push(UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
            buffer.consume(range.upperBound)
        }
    }

    private func item(_ row: XMLDumpRow) -> DumpItem {
        let location = SourceLocation(file: path, row: row.number)
        if let problem = row.problem {
            return .malformed(UnreadableRecord(location: location, reason: problem))
        }
        let fields = row.fields.map { DumpField(name: $0.name, value: $0.value.map(DumpValue.text) ?? .null) }
        return .record(DumpRecord(location: location, ordinal: row.number, fields: fields))
    }
}
