import Decompression
import DumpFormats
import IAPBasics

/// An order of tonight's dumps as the explain index finds it: its latest row and the receipt
/// the join chose for it, read again where `screen` read them, and what the claims decided.
package struct IndexedOrder {
    /// As the night keeps it (its place as `screen` read it).
    package var row: OrderRow
    package var position: Int
    /// The receipt the join chose, as `WatchedOrder` tells it.
    package var receipt: (payload: String, location: SourceLocation, fromReceiptsDump: Bool)?
    /// nil: nothing beside what screening assumes.
    package var facts: OrderFacts?
}

extension ExplainIndex {
    package enum Found {
        case order(IndexedOrder)
        case notInDumps
    }

    /// The order `orderID`, its records read again and checked to be its own.
    package func order(_ orderID: String) throws(Refusal) -> Found {
        let entries = try orderEntries(orderID)
        guard !entries.isEmpty else { return .notInDumps }
        let (entry, row) = try own(orderID, entries, \.record, what: "row", \.orderID) { (r) throws(InputError) in
            try r.nextOrder()
        }
        var order = IndexedOrder(
            row: try placed(row, entry.record), position: entry.position, receipt: nil,
            facts: try facts(of: entry, orderID: orderID))
        if let own = row.receipt {
            order.receipt = (own, order.row.location, false)
        } else {
            let entries = try receiptEntries(orderID)
            if !entries.isEmpty {
                let (r, taken) = try own(orderID, entries, \.record, what: "receipt's row", \.orderID) {
                    (reader) throws(InputError) in try reader.nextReceipt()
                }
                order.receipt = (taken.receipt, try location(r.record), true)
            }
        }
        return .order(order)
    }

    /// The first of `entries` whose record, read again, is `orderID`'s. Another order of the
    /// same hash is rare; a record that reads as another order's is more likely a dump that
    /// changed under the same size, time and head: not known, so not said.
    private func own<Entry, Row>(
        _ orderID: String, _ entries: [Entry], _ place: KeyPath<Entry, RecordPlace>, what: String,
        _ id: KeyPath<Row, String>, _ next: (DumpReader) throws(InputError) -> Result<Row, UnreadableRecord>?
    ) throws(Refusal) -> (Entry, Row) {
        for entry in entries {
            let row = try reread(entry[keyPath: place], what: "its \(what)", next)
            if row[keyPath: id] == orderID { return (entry, row) }
        }
        throw Refusal(description: "the \(what) it names for order \(quotedValue(orderID)) is another order's")
    }

    /// The row as the night keeps it, at the place screen read it.
    private func placed(_ row: OrderRow, _ place: RecordPlace) throws(Refusal) -> OrderRow {
        var r = row
        r.receipt = nil
        r.location = try location(place)
        let pool = StringPool()
        return StoredOrder(r, pool: pool).row(pool: pool)
    }

    private func location(_ place: RecordPlace) throws(Refusal) -> SourceLocation {
        guard dumps.indices.contains(place.file) else { throw damaged("a record's dump is not one of the night's") }
        let path = dumps[place.file].path
        return place.isRow
            ? SourceLocation(file: path, row: place.place) : SourceLocation(file: path, line: place.place)
    }

    /// The record at `place` read again: the dump's first item (what a reader needs before any
    /// later one: the header, the XML prologue), then the dump from the record's start on,
    /// through a window that grows until the record is whole.
    private func reread<Row>(
        _ place: RecordPlace, what: String, _ next: (DumpReader) throws(InputError) -> Result<Row, UnreadableRecord>?
    ) throws(Refusal) -> Row {
        guard dumps.indices.contains(place.file) else { throw damaged("a record's dump is not one of the night's") }
        let dump = dumps[place.file]
        guard place.start >= 0 else {
            throw Refusal(description: "it does not know where \(what) stands in \(dump.path)")
        }
        let limits = Limits.standard
        do {
            if let second = dump.secondItemStart, second < 0 {
                throw Refusal(description: "it does not know where the first record of \(dump.path) ends")
            }
            guard let second = dump.secondItemStart, place.start >= second else {
                // The dump's first item: read from its start.
                return try Self.row(
                    try next(try DumpReader(path: dump.path, limits: limits, buffers: .small)), what, dump)
            }
            guard second <= Int64(limits.maxRecordBytes) * 2 else {
                throw Refusal(description: "the first record of \(dump.path) is too long to read again")
            }
            let head = try InputOpener.open(path: dump.path, limits: limits, buffers: .small)
            let prefix = try Self.bytes(head.stream, Int(second))
            guard prefix.count == Int(second) else { throw Refusal(description: "\(dump.path) is shorter than it was") }
            let member = dump.members.last { $0.decompressedOffset <= place.start } ?? .start
            for window in [256 << 10, 4 << 20, limits.maxRecordBytes + (1 << 20)] {
                let stream = try ResumedInput.open(path: dump.path, at: place.start, member: member, limits: limits)
                let rest = try Self.bytes(stream, window)
                let atEnd = rest.count < window
                let reader = try DumpReader(bytes: prefix + rest, name: dump.path, limits: limits)
                do {
                    _ = try reader.next()
                    let target = try next(reader)
                    // Whole when the dump ended inside the window, or something follows it there.
                    let follows: Bool
                    do { follows = try reader.next() != nil } catch { follows = true }
                    if atEnd || follows { return try Self.row(target, what, dump) }
                } catch  where !atEnd {
                    continue  // The window ends inside the record (an XML row cut short).
                }
            }
            throw Refusal(description: "\(what) in \(dump.path) is longer than a record may be")
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal(description: "\(what) cannot be read again: \(error)")
        }
    }

    private static func row<Row>(_ read: Result<Row, UnreadableRecord>?, _ what: String, _ dump: Dump) throws(Refusal)
        -> Row
    {
        switch read {
        case .success(let row)?: return row
        case .failure(let m)?: throw Refusal(description: "\(what) in \(dump.path) no longer reads (\(m.reason))")
        case nil: throw Refusal(description: "\(what) is no longer in \(dump.path)")
        }
    }

    /// Up to `count` bytes of `stream` (fewer at its end).
    private static func bytes(_ stream: ByteStream, _ count: Int) throws(InputError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer { buffer.deallocate() }
        let got = try stream.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
        return Array(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
    }
}
