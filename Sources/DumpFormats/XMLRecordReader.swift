import Decompression
import IAPBasics
import XMLStream

/// `mysqldump --xml` rows, pushed through `XMLDumpParser` one buffer-full at a time, but
/// for the rows in mysqldump's strict form, which `XMLStrictRows` finds and reads (libxml2,
/// given the whitespace that keeps its place instead, still checks the document around
/// them). A row is located by its 1-based row number. A row the parser could not use (too
/// long, a nested element) is a malformed item; a document that stops being XML ends the
/// file with an `InputError` naming libxml2's line and column, after the rows before it.
final class XMLRecordReader: RecordSource {
    private let buffer: RecordBuffer
    private let path: String
    private let parser: XMLDumpParser
    private let limits: Limits
    /// Finds the strict rows (made at the first read; never when `readsStrictRows` is off).
    private var skim: XMLStrictRows?
    /// Off: every row is libxml2's, as the check of the strict rows' reading compares.
    private let readsStrictRows: Bool
    /// Whitespace libxml2 is owed (rows read here, the blanks between them): its newlines,
    /// then the characters after the last one. It is given collapsed, and only before other
    /// bytes or the end: libxml2 looks back through its buffer for a `<` at every push.
    private var owedNewlines = 0
    private var owedColumns = 0
    /// Newlines or spaces to give them from, filled once.
    private var blanks: [UInt8] = []
    /// See `RecordSource.lastItemStart`: where a strict row's `<row` stands; a row libxml2
    /// read is not known (its count is not the stream's: it was given whitespace for the others).
    private(set) var lastItemStart: Int64? = -1

    init(buffer: RecordBuffer, path: String, limits: Limits, readsStrictRows: Bool = true) {
        self.buffer = buffer
        self.path = path
        self.limits = limits
        self.readsStrictRows = readsStrictRows
        parser = XMLDumpParser(limits: limits)
    }

    /// Rows in mysqldump's strict form are read here (`XMLStrictRows`), and a worker leaves
    /// the other shards' unread; the rest come out of libxml2 whole, their order id with them.
    func read(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        if skim == nil, readsStrictRows || shard != nil { skim = XMLStrictRows(shard: shard, limits: limits) }
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
                payOwedWhitespace()
                parser.finish()
                continue
            }
            guard skim != nil else {
                parser.push(buffer.unconsumed)
                buffer.discardAll()
                continue
            }
            if let item = try pushSkimming(shard: shard) { return item }
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
                return raw.allSatisfy(ByteSearch.isSpace) ? nil : .some(nil)
            }
            // nil: blank, and the mapper reads on; .some(nil): an id that is not plain.
            guard let verdict else { continue }
            return verdict
        }
        return nil
    }

    /// Pushes the next piece the skim finds: text and markup as they are, a strict row as the
    /// whitespace that keeps libxml2's place; the row read here, unless another shard's.
    private func pushSkimming(shard: ShardSpec?) throws(InputError) -> SourceItem? {
        let bytes = buffer.unconsumed
        switch skim?.next(bytes, ended: buffer.exhausted) ?? .push(bytes.count) {
        case .push(let n):
            give(UnsafeRawBufferPointer(rebasing: bytes[0..<min(max(n, 1), bytes.count)]))
            buffer.consume(max(n, 1))
        case .needMore:
            if !(try buffer.fill()) {
                // Ended: the skim pushes what is left on the next call.
                return nil
            }
        case .row(let range, let elsewhere, let newlines, let tail):
            // What stands before the row goes first: libxml2 has then read up to the row.
            if range.lowerBound > 0 { give(UnsafeRawBufferPointer(rebasing: bytes[0..<range.lowerBound])) }
            if elsewhere, parser.skipRow() {
                keepPlace(newlines: newlines, tail: tail)
            } else if !elsewhere, parser.isBetweenRows, parser.hasRowsReady {
                // Rows libxml2 finished before this one go first; it is scanned again after them.
                buffer.consume(range.lowerBound)
                return nil
            } else if !elsewhere, let skim, let number = parser.countRow() {
                let item = strictItem(number: number, fields: skim.fields)
                lastItemStart = buffer.consumedBytes + Int64(range.lowerBound)
                keepPlace(newlines: newlines, tail: tail)
                buffer.consume(range.upperBound)
                return .item(item, ownID: shard != nil)
            } else {
                give(UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
            buffer.consume(range.upperBound)
        }
        return nil
    }

    /// Owes libxml2 the newlines and characters of a row it is not given.
    private func keepPlace(newlines: Int, tail: Int) {
        owedNewlines += newlines
        owedColumns = newlines > 0 ? tail : owedColumns + tail
    }

    /// Pushes `bytes` to libxml2; blanks between rows (where no field holds them), without a
    /// CR (which libxml2 counts as a newline too), are owed instead.
    private func give(_ bytes: UnsafeRawBufferPointer) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }), parser.isBetweenRows {
            for c in bytes {
                if c == 0x0A {
                    owedNewlines += 1
                    owedColumns = 0
                } else {
                    owedColumns += 1
                }
            }
            return
        }
        payOwedWhitespace()
        parser.push(bytes)
    }

    /// Pushes what libxml2 is owed: its newlines, then spaces for the characters after them.
    private func payOwedWhitespace() {
        let chunk = 64 << 10
        if blanks.isEmpty { blanks = [UInt8](repeating: 0x0A, count: chunk) + [UInt8](repeating: 0x20, count: chunk) }
        blanks.withUnsafeBytes { all in
            while owedNewlines > 0 {
                let n = min(owedNewlines, chunk)
                parser.push(UnsafeRawBufferPointer(rebasing: all[0..<n]))
                owedNewlines -= n
            }
            while owedColumns > 0 {
                let n = min(owedColumns, chunk)
                parser.push(UnsafeRawBufferPointer(rebasing: all[chunk..<(chunk + n)]))
                owedColumns -= n
            }
        }
    }

    /// A strict row as libxml2 would have given it (`XMLStrictRows.decodedText`).
    private func strictItem(number: Int, fields: [XMLStrictRows.StrictField]) -> DumpItem {
        var made: [DumpField] = []
        made.reserveCapacity(fields.count)
        for (place, field) in fields.enumerated() {
            made.append(
                DumpField(
                    name: name(field.name, at: place),
                    value: field.text.map { .text(XMLStrictRows.decodedText($0)) } ?? .null))
        }
        return .record(DumpRecord(location: SourceLocation(file: path, row: number), ordinal: number, fields: made))
    }

    // `@exclusivity(unchecked)`: only this object's own methods touch it, never two accesses
    // at once; the run-time check was a thread-local lookup at every use (swift_beginAccess).
    /// The last row's field names by place, as bytes and as made: rows of a table name their
    /// fields alike, and comparing bytes is cheaper than making (and checking) a string.
    @exclusivity(unchecked) private var lastNames: [(bytes: [UInt8], name: String)] = []
    private static let rememberedPlaces = 64

    private func name(_ bytes: UnsafeRawBufferPointer, at place: Int) -> String {
        if place < lastNames.count, ByteSearch.same(lastNames[place].bytes, bytes) { return lastNames[place].name }
        let name = String(decoding: bytes, as: UTF8.self)
        if place < lastNames.count {
            lastNames[place] = (Array(bytes), name)
        } else if place == lastNames.count, place < Self.rememberedPlaces {
            lastNames.append((Array(bytes), name))
        }
        return name
    }

    private func item(_ row: XMLDumpRow) -> DumpItem {
        lastItemStart = -1
        let location = SourceLocation(file: path, row: row.number)
        if let problem = row.problem {
            return .malformed(UnreadableRecord(location: location, reason: problem))
        }
        let fields = row.fields.map { DumpField(name: $0.name, value: $0.value.map(DumpValue.text) ?? .null) }
        return .record(DumpRecord(location: location, ordinal: row.number, fields: fields))
    }
}
