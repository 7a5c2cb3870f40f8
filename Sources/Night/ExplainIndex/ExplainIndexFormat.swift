/// The explain index `screen` leaves in its `--out` (`explain-index.bin`): for one order id,
/// where its record and its receipt's record stand in the dumps, and what the night's claims
/// decided of it, found with a few reads however big the night. Internal and versioned: an
/// index of another version, or of other inputs, is not used (`explain` screens the night
/// again, saying why). Little-endian throughout:
///
///     magic           8  "IAPSXIX1" (version 1)
///     sections           at the offsets the header gives (each checked against the file's size):
///       orders           count x 40, sorted by (hash, slot)
///                          hash u64 | start i64 | file u16 | row u8 | 0 u8 | place u32
///                          | position u32 | facts u64 (offset into facts + 1; 0: none) | check u32
///       receipts         count x 28, sorted by hash: the receipts-dump row an order took
///                          hash u64 | start i64 | file u16 | row u8 | 0 u8 | place u32 | check u32
///       facts            records (below), each an `OrderFacts` object
///       event keys       count x 24, sorted by (hash, item)
///                          hash u64 | item u32 | offset u64 (into events) | check u32
///       events           records, each `{"names": [...], "line": "..."}`
///     header JSON        n bytes (at most 16 MiB): the stamp, the dumps, the sections, the night
///     n u32 | SHA-256 of the header (32)
///     ledger JSON        m bytes: the ledger's run screen recorded, appended once it has it
///     m u32 | "IAPSXEND"
///
/// A record is `length u32 | check u32 | bytes`. `hash` is FNV-1a 64 of the order id (or
/// name), `start` where the record can be read again (`DumpReader.lastItemStart`, -1: not
/// known), `file` the dump's index among the orders dumps then the receipts dumps, `place` its
/// line (or XML row, `row` 1), `check` FNV-1a 32 of the entry's other bytes and its index.
enum ExplainIndexFormat {
    static let fileName = "explain-index.bin"
    static let magic = Array("IAPSXIX1".utf8)
    static let endMagic = Array("IAPSXEND".utf8)

    /// Caps on what a reader takes from the file (it is input like any other).
    static let maxHeaderBytes = 16 << 20
    static let maxRecordBytes = 8 << 20
    static let maxTrailerBytes = 64 << 10
    /// Entries of one hash read at the most: more is a crafted file, not a night.
    static let maxSameHash = 64

    /// FNV-1a 32 of `bytes` after `seed` (an entry's index: an entry moved elsewhere fails it).
    static func check(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt32 {
        var h: UInt32 = 0x811C_9DC5
        for k in 0..<8 {
            h = (h ^ UInt32(truncatingIfNeeded: seed >> (8 * UInt64(k)))) &* 0x0100_0193
        }
        for b in bytes { h = (h ^ UInt32(b)) &* 0x0100_0193 }
        return h
    }

    static func check(_ bytes: [UInt8], seed: UInt64) -> UInt32 {
        bytes.withUnsafeBytes { check($0, seed: seed) }
    }
}

/// Where a record of tonight's dumps stands: what `IndexedRecords` reads it again from.
package struct RecordPlace: Equatable, Sendable {
    /// The dump's index among the orders dumps, then the receipts dumps.
    package var file: Int
    package var start: Int64
    /// The line (or XML row) `screen` read it at.
    package var place: Int
    package var isRow: Bool
}

/// An entry of a sorted section: its fields, then `check u32` of them and of its index.
protocol IndexEntry {
    /// Bytes an entry takes, its check included.
    static var size: Int { get }
    var hash: UInt64 { get }
    /// The fields, `size - 4` bytes.
    func put(into out: inout [UInt8])
    /// nil when the fields are no such entry's.
    init?(fields b: UnsafeRawBufferPointer)
}

extension IndexEntry {
    /// Appends the entry at `index` of its section to `out`.
    func append(index: Int, to out: inout [UInt8]) {
        let start = out.count
        put(into: &out)
        let check = out.withUnsafeBytes {
            ExplainIndexFormat.check(UnsafeRawBufferPointer(rebasing: $0[start...]), seed: UInt64(index))
        }
        LittleEndian.put(check, into: &out)
    }

    /// The entry at `index` of its section; nil when its check fails or it is no entry.
    static func read(_ b: UnsafeRawBufferPointer, index: Int) -> Self? {
        guard b.count == size else { return nil }
        let fields = UnsafeRawBufferPointer(rebasing: b[..<(size - 4)])
        guard ExplainIndexFormat.check(fields, seed: UInt64(index)) == LittleEndian.uint32(b, size - 4) else {
            return nil
        }
        return Self(fields: fields)
    }
}

/// An order's entry.
package struct OrderEntry: IndexEntry, Equatable {
    static let size = 40
    var hash: UInt64
    var record: RecordPlace
    var position: Int
    /// Offset + 1 of its facts record; 0: none.
    var facts: UInt64

    init(hash: UInt64, record: RecordPlace, position: Int, facts: UInt64) {
        self.hash = hash
        self.record = record
        self.position = position
        self.facts = facts
    }

    func put(into out: inout [UInt8]) {
        LittleEndian.put(hash, into: &out)
        record.put(into: &out)
        LittleEndian.put(UInt32(clamping: position), into: &out)
        LittleEndian.put(facts, into: &out)
    }

    init?(fields b: UnsafeRawBufferPointer) {
        guard let record = RecordPlace(b, at: 8) else { return nil }
        hash = LittleEndian.uint64(b, 0)
        self.record = record
        position = Int(LittleEndian.uint32(b, 24))
        facts = LittleEndian.uint64(b, 28)
    }
}

/// The receipts-dump row an order took.
package struct ReceiptEntry: IndexEntry, Equatable {
    static let size = 28
    var hash: UInt64
    var record: RecordPlace

    init(hash: UInt64, record: RecordPlace) {
        self.hash = hash
        self.record = record
    }

    func put(into out: inout [UInt8]) {
        LittleEndian.put(hash, into: &out)
        record.put(into: &out)
    }

    init?(fields b: UnsafeRawBufferPointer) {
        guard let record = RecordPlace(b, at: 8) else { return nil }
        hash = LittleEndian.uint64(b, 0)
        self.record = record
    }
}

/// A name an event goes by (claim key, token, transaction), and where its record is.
struct EventKeyEntry: IndexEntry, Equatable {
    static let size = 24
    var hash: UInt64
    /// The event's place among the night's events: lines are said in this order.
    var item: UInt32
    var offset: UInt64

    init(hash: UInt64, item: UInt32, offset: UInt64) {
        self.hash = hash
        self.item = item
        self.offset = offset
    }

    func put(into out: inout [UInt8]) {
        LittleEndian.put(hash, into: &out)
        LittleEndian.put(item, into: &out)
        LittleEndian.put(offset, into: &out)
    }

    init?(fields b: UnsafeRawBufferPointer) {
        hash = LittleEndian.uint64(b, 0)
        item = LittleEndian.uint32(b, 8)
        offset = LittleEndian.uint64(b, 12)
    }
}

extension RecordPlace {
    /// start i64 | file u16 | row u8 | 0 u8 | place u32: 16 bytes.
    func put(into out: inout [UInt8]) {
        LittleEndian.put(UInt64(bitPattern: start), into: &out)
        LittleEndian.put(UInt16(clamping: file), into: &out)
        out += [isRow ? 1 : 0, 0]
        LittleEndian.put(UInt32(clamping: place), into: &out)
    }

    init?(_ b: UnsafeRawBufferPointer, at k: Int) {
        guard k + 16 <= b.count, b[k + 10] <= 1, b[k + 11] == 0 else { return nil }
        self.init(
            file: Int(LittleEndian.uint16(b, k + 8)), start: Int64(bitPattern: LittleEndian.uint64(b, k)),
            place: Int(LittleEndian.uint32(b, k + 12)), isRow: b[k + 10] == 1)
    }
}
