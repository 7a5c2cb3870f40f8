import Decompression
import DumpFormats
import IAPBasics

/// Where tonight's records stand in their dumps, noted as the loader reads them, for the
/// explain index (`ExplainIndexWriter`): each order's latest row is noted in its slot
/// (`NightLoader.Slot.rowStart`), the receipts-dump row the join chose for an order here (a
/// pass file, a few bytes a row), and of every dump where its second item starts (what a
/// reader must read first to find any later item again: the header, the XML prologue, the
/// first record) and where its gzip members start.
final class DumpPlaces {
    /// One dump as it was read: orders dumps first, then receipts dumps, in the night's order.
    struct File {
        var path: String
        /// Where the file's second item starts (nil: it has fewer than two).
        var secondItemStart: Int64?
        var checkpoints: [GzipCheckpoints.Point] = []
    }

    private(set) var files: [File] = []
    private var itemsOfFile = 0
    /// The receipts-dump rows the join took, in the order taken: the last one of a slot is its receipt.
    let receiptRows: PassFile
    private var scratch: [UInt8] = []

    init() throws(PassFile.Failure) {
        receiptRows = try PassFile()
    }

    /// The file being read now (its index in `files`).
    var currentFile: Int { files.count - 1 }

    func beginFile(_ path: String) {
        files.append(File(path: path))
        itemsOfFile = 0
    }

    /// An item of the current file was read (of any kind), starting at `start`.
    func sawItem(start: Int64?) {
        itemsOfFile += 1
        if itemsOfFile == 2, let k = files.indices.last { files[k].secondItemStart = start ?? -1 }
    }

    func endFile(checkpoints: [GzipCheckpoints.Point]) {
        if let k = files.indices.last { files[k].checkpoints = checkpoints }
    }

    /// The receipts-dump row at `location` (the current file), read from `start`, is now `slot`'s.
    func tookReceipt(slot: Int, location: SourceLocation, start: Int64?) throws(PassFile.Failure) {
        scratch.removeAll(keepingCapacity: true)
        let (isRow, place) = ReceiptRowPlace.split(location)
        ReceiptRowPlace.pack(
            ReceiptRowPlace(
                slot: UInt32(truncatingIfNeeded: slot), file: UInt16(clamping: currentFile), isRow: isRow,
                place: place, start: start ?? RowStart.unknown),
            into: &scratch)
        try receiptRows.put(scratch)
    }
}

/// A receipts-dump row the join chose, as `DumpPlaces` keeps it: 19 bytes, little-endian
/// (slot u32, file u16, row-or-line u8, place u32, start i64).
struct ReceiptRowPlace: Equatable {
    static let size = 19

    var slot: UInt32
    var file: UInt16
    var isRow: Bool
    var place: UInt32
    var start: Int64

    static func split(_ l: SourceLocation) -> (isRow: Bool, place: UInt32) {
        switch l.position {
        case .line(let n): return (false, UInt32(clamping: n))
        case .row(let n): return (true, UInt32(clamping: n))
        }
    }

    static func pack(_ p: ReceiptRowPlace, into out: inout [UInt8]) {
        LittleEndian.put(p.slot, into: &out)
        LittleEndian.put(p.file, into: &out)
        out.append(p.isRow ? 1 : 0)
        LittleEndian.put(p.place, into: &out)
        LittleEndian.put(UInt64(bitPattern: p.start), into: &out)
    }

    static func unpack(_ b: UnsafeRawBufferPointer) -> ReceiptRowPlace {
        ReceiptRowPlace(
            slot: LittleEndian.uint32(b, 0), file: LittleEndian.uint16(b, 4), isRow: b[6] != 0,
            place: LittleEndian.uint32(b, 7), start: Int64(bitPattern: LittleEndian.uint64(b, 11)))
    }
}

/// Where a record can be read again from (`DumpReader.lastItemStart`), as the index keeps it.
enum RowStart {
    /// Not known: the order is explained by screening the night again.
    static let unknown: Int64 = -1
    /// A slot keeps 48 bits (in bytes its layout had spare): 256 TiB of a dump's content.
    static let slotLimit: Int64 = 1 << 48
}

/// Little-endian integers in byte arrays: the index's and the pass files' layout.
enum LittleEndian {
    static func put<T: FixedWidthInteger>(_ v: T, into out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    static func uint16(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt16 { read(b, at) }
    static func uint32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 { read(b, at) }
    static func uint64(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt64 { read(b, at) }

    /// `at` and the width are the caller's layout, checked against `b` (short bytes read as zeros).
    private static func read<T: FixedWidthInteger>(_ b: UnsafeRawBufferPointer, _ at: Int) -> T {
        var v: T = 0
        let width = MemoryLayout<T>.size
        for k in 0..<width where at + k >= 0 && at + k < b.count {
            v |= T(b[at + k]) << (8 * k)
        }
        return v
    }
}
