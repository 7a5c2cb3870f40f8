import Decompression
import IAPBasics
import JSONText

/// The wide part of up to `FlaggedBlockPacker.capacity` flagged orders of one run — each
/// order's receipt fields and its findings.jsonl lines — kept as one compressed row of
/// `flagged_blocks` under (run, `n`). A night's lines are most of what the desk keeps
/// (400 bytes a finding); packed together they compress about eightfold and cost the ledger
/// a row per block instead of a row per finding, which is what keeps recording them cheap.
///
/// `data` is text, so both backends and `ledger copy` carry it as any other column:
/// - a packed block: base64 of one gzip member of the entries;
/// - a plain block (what the 4 → 5 migration made of the findings kept before): the entries
///   themselves, which begin with U+001E, a character base64 never holds.
///
/// The entries: for each order, U+001E, its id as a JSON string, then a line feed and its
/// receipt (`FlaggedOrderRecord.receipt`, or `null`), then a line feed and each line. None of
/// them holds a raw U+001E or line feed: each is JSON text, which escapes control characters.
public struct FlaggedBlock: Sendable, Equatable {
    /// Its number within its run: from 0, in the order packed; a sharded run's are its
    /// workers' numbers with the shard's above them (`shard << 32 | n`), so none collide.
    public var n: Int64
    public var data: String

    public init(n: Int64, data: String) {
        self.n = n
        self.data = data
    }

    /// Most bytes an entry list may inflate to: a full block is a few hundred kilobytes.
    static let maxInflatedBytes = 16 << 20
    static let entryStart: UInt8 = 0x1E
    static let lineFeed: UInt8 = 0x0A

    /// The entry of `orderID` (of two, the later: an order given twice in a night is as the
    /// later copy left it), or nil when the block has none. Throws on a block that does not
    /// read as one.
    /// Every entry is checked; only the one asked for is made into strings (an order's page
    /// reads one entry of 64).
    public func entry(of orderID: String) throws(LedgerError) -> FlaggedEntry? {
        try parts().last { $0.orderID == orderID }.map(Self.entry)
    }

    /// Every entry, in the order packed.
    public func entries() throws(LedgerError) -> [FlaggedEntry] {
        try parts().map(Self.entry)
    }

    /// Each entry's order id, and its receipt and lines as they lie in the block.
    private func parts() throws(LedgerError) -> [(orderID: String, rest: [ArraySlice<UInt8>])] {
        let text = try entryBytes()
        var parts: [(orderID: String, rest: [ArraySlice<UInt8>])] = []
        for chunk in text.split(separator: Self.entryStart, omittingEmptySubsequences: true) {
            let fields = chunk.split(separator: Self.lineFeed, omittingEmptySubsequences: false)
            guard fields.count >= 2, let id = Self.jsonString(fields[0]) else {
                throw Self.unreadable(n, "an entry without its order id and receipt")
            }
            parts.append((id, Array(fields.dropFirst())))
        }
        return parts
    }

    private static func entry(_ part: (orderID: String, rest: [ArraySlice<UInt8>])) -> FlaggedEntry {
        let receipt = part.rest.first.map { String(decoding: $0, as: UTF8.self) }
        return FlaggedEntry(
            orderID: part.orderID, receipt: receipt == "null" ? nil : receipt,
            lines: part.rest.dropFirst().map { String(decoding: $0, as: UTF8.self) })
    }

    private func entryBytes() throws(LedgerError) -> [UInt8] {
        let bytes = Array(data.utf8)
        if bytes.first == Self.entryStart { return bytes }
        let packed: [UInt8]
        do {
            packed = try Base64.decode(bytes, maxBytes: Self.maxInflatedBytes)
        } catch {
            throw Self.unreadable(n, "not base64 (\(error))")
        }
        do throws(InputError) {
            return try Self.inflate(packed, n: n)
        } catch {
            throw Self.unreadable(n, "\(error)")
        }
    }

    /// The gzip member `packed` inflated; past `maxInflatedBytes` the stream's cap refuses it.
    private static func inflate(_ packed: [UInt8], n: Int64) throws(InputError) -> [UInt8] {
        var limits = Limits.standard
        limits.maxDecompressedBytes = Int64(maxInflatedBytes)
        let gzip = try GzipByteStream(
            source: MemoryByteStream(packed), path: "flagged block \(n)", limits: limits, inputChunkBytes: 1 << 16)
        var out: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try gzip.read(into: chunk)
            if count == 0 { return out }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
        }
    }

    private static func jsonString(_ bytes: ArraySlice<UInt8>) -> String? {
        guard case .string(let s)? = try? JSONParser.parse(Array(bytes)) else { return nil }
        return s
    }

    private static func unreadable(_ n: Int64, _ why: String) -> LedgerError {
        LedgerError("ledger: flagged block \(n) cannot be read: \(why)", code: .unreadableRows)
    }
}

/// One order's part of a block.
public struct FlaggedEntry: Sendable, Equatable {
    public var orderID: String
    /// `FlaggedOrderRecord.receipt`.
    public var receipt: String?
    /// Its counting findings' findings.jsonl lines, in report order.
    public var lines: [String]
}

/// Packs a run's flagged orders into blocks as they come: `add` says which block an order's
/// entry went in and hands over each block it filled; `finish` the last one.
public struct FlaggedBlockPacker {
    public static let capacity = 64
    private var next: Int64
    private var pending: [UInt8] = []
    private var count = 0

    public init() {
        next = 0
        pending.reserveCapacity(64 << 10)
    }

    /// The number of the block the next entry goes in.
    public var block: Int64 { next }

    /// Adds an order's entry to the current block: its receipt's JSON (nil: none) and each of
    /// its lines (JSON text, without its newline); the block when this entry filled it.
    public mutating func add(
        orderID: String, receipt: (some Collection<UInt8>)?, lines: some Sequence<some Collection<UInt8>>
    ) -> FlaggedBlock? {
        pending.append(FlaggedBlock.entryStart)
        JSONWriter().writeString(orderID, to: &pending)
        pending.append(FlaggedBlock.lineFeed)
        if let receipt { pending.append(contentsOf: receipt) } else { pending.append(contentsOf: "null".utf8) }
        for line in lines {
            pending.append(FlaggedBlock.lineFeed)
            pending.append(contentsOf: line)
        }
        count += 1
        return count == Self.capacity ? finish() : nil
    }

    /// The block being packed, compressed (nil when it holds nothing); the next starts empty.
    public mutating func finish() -> FlaggedBlock? {
        guard count > 0 else { return nil }
        // FastGzip refuses only past 2 GiB; a block is far below, but never lose one: keep it plain.
        let data = FastGzip.member(pending).map { Base64.encode($0) } ?? String(decoding: pending, as: UTF8.self)
        let block = FlaggedBlock(n: next, data: data)
        next += 1
        pending.removeAll(keepingCapacity: true)
        count = 0
        return block
    }
}
