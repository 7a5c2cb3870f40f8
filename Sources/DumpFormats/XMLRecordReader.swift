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

    init(buffer: RecordBuffer, path: String, limits: Limits) {
        self.buffer = buffer
        self.path = path
        parser = XMLDumpParser(limits: limits)
    }

    /// Every worker reads every row: the order id comes out of libxml2 with the rest.
    func read(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        try nextRow().map { .item($0, ownID: false) }
    }

    private func nextRow() throws(InputError) -> DumpItem? {
        while true {
            let row: XMLDumpRow?
            do {
                row = try parser.nextRow()
            } catch {
                throw InputError(path: path, reason: "XML \(error)", code: error.code)
            }
            if let row { return item(row) }
            if parser.isDone { return nil }
            if buffer.unconsumed.isEmpty, !(try buffer.fill()) {
                parser.finish()
                continue
            }
            parser.push(buffer.unconsumed)
            buffer.discardAll()
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
