import Decompression
import IAPBasics

/// Reads one order or receipt dump as a stream of records, whatever its layout and
/// compression: CSV, TSV, JSON Lines, `mysqldump --xml`, each plain or gzip (by magic
/// bytes, whatever the name). Memory stays flat however large the file: one chunk plus
/// the record being read, both capped by `Limits`.
///
/// A record that cannot be read is a `.malformed` item and reading goes on; only a file
/// that cannot be read on (cannot be opened, a corrupt compressed stream, a broken XML
/// document, an unreadable header) throws `InputError`.
public final class DumpReader {
    public let path: String
    public let format: DumpFormat
    public let compression: InputCompression
    private let input: OpenedInput
    private let buffer: RecordBuffer
    private let source: RecordSource
    private let mapper = DumpRowMapper()
    /// Items returned so far (records and malformed ones).
    public private(set) var itemCount = 0
    /// Where the last item returned can be read again from: a byte of the file's content
    /// (decompressed) after the item before it and at or before this one's first, so that a
    /// reader started there on the same layout finds this item first (the header or XML
    /// prologue put in front: `explain` does so). nil when it is not known.
    public private(set) var lastItemStart: Int64?

    /// Where a gzip file's members start, once it is read (empty for a plain file).
    public var gzipCheckpoints: [GzipCheckpoints.Point] { input.checkpoints?.points ?? [] }

    /// Opens `path`; `rawObserver` sees every raw (still compressed) chunk of the file, to
    /// hash and count it.
    /// `buffers` sets speed and memory, not what is read.
    public convenience init(
        path: String, limits: Limits = .standard, buffers: ReadBuffers = .standard,
        rawObserver: FileByteStream.RawObserver? = nil
    ) throws(InputError) {
        try self.init(
            try InputOpener.open(path: path, limits: limits, buffers: buffers, observer: rawObserver),
            path: path, limits: limits, buffers: buffers)
    }

    /// Reads `bytes` as the file `name` would be read (its extension picks the format as a
    /// path's does; `name` is the file in every location and message). `xmlStrictRows` off
    /// leaves every XML row to libxml2: what the rows read without it are checked against.
    public convenience init(
        bytes: [UInt8], name: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard, xmlStrictRows: Bool = true
    ) throws(InputError) {
        try self.init(
            try InputOpener.open(bytes: bytes, name: name, limits: limits, buffers: buffers),
            path: name, limits: limits, buffers: buffers, xmlStrictRows: xmlStrictRows)
    }

    private init(
        _ input: OpenedInput, path: String, limits: Limits, buffers: ReadBuffers, xmlStrictRows: Bool = true
    ) throws(InputError) {
        self.path = path
        self.input = input
        compression = input.compression
        buffer = RecordBuffer(stream: input.stream, buffers: buffers)
        // Enough to see the byte order mark, the first non-space byte and the header line.
        try buffer.fill(toAtLeast: 64 << 10)
        // A UTF-8 byte order mark (spreadsheet exports) is not part of the first name.
        let head = buffer.unconsumed
        if head.count >= 3, head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF { buffer.consume(3) }
        format = DumpFormat.byExtension(of: path) ?? DumpFormat.byContent(buffer.unconsumed)
        switch format {
        case .csv, .tsv: source = DelimitedRecordReader(buffer: buffer, path: path, limits: limits, format: format)
        case .jsonLines: source = JSONLinesRecordReader(buffer: buffer, path: path, limits: limits)
        case .xml:
            source = XMLRecordReader(buffer: buffer, path: path, limits: limits, readsStrictRows: xmlStrictRows)
        }
        // Only a delimited layout has a header to look at; the others' records name their fields.
        orderColumnChecked = !(source is DelimitedRecordReader)
    }

    /// Raw bytes of the file read so far.
    public var rawBytesRead: Int64 { input.rawBytesRead }

    /// The next record or malformed record; nil at the end of the file.
    public func next() throws(InputError) -> DumpItem? {
        let before = buffer.consumedBytes
        let item = try source.next()
        if item != nil { itemCount += 1 }
        lastItemStart = Self.start(source.lastItemStart ?? before)
        return item
    }

    private static func start(_ offset: Int64) -> Int64? { offset >= 0 ? offset : nil }

    /// Whether the header was looked at for an order id (`checkOrderColumn`).
    private var orderColumnChecked = false

    /// Every row of an orders or receipts dump is about an order: a CSV or TSV header that
    /// names none (under any alias) is another file or a broken export, not a night of
    /// unreadable rows. Asked once the header is read, by the readers of orders and receipts.
    private func checkOrderColumn() throws(InputError) {
        guard !orderColumnChecked, let header = (source as? DelimitedRecordReader)?.headerNames else { return }
        orderColumnChecked = true
        guard header.contains(where: { DumpColumn.matching($0) == .orderID }) else {
            let shown = header.prefix(12).map { "\"\(String($0.prefix(40)))\"" }.joined(separator: ", ")
            throw InputError(
                path: path,
                reason: "its header names no order id column (found: \(shown)"
                    + "\(header.count > 12 ? ", … \(header.count) in all" : "")); expected "
                    + DumpColumn.orderID.spellings,
                code: "no-order-column")
        }
    }

    /// The next record read as an order (docs/inputs.md's field table).
    public func nextOrder() throws(InputError) -> Result<OrderRow, UnreadableRecord>? {
        let item = try next()
        try checkOrderColumn()
        switch item {
        case .none: return nil
        case .malformed(let m): return .failure(m)
        case .record(let r):
            do { return .success(try mapper.orderRow(r)) } catch { return .failure(error) }
        }
    }

    /// `nextOrder` for one shard's worker (see `ShardRead`).
    public func nextOrder(in shard: ShardSpec) throws(InputError) -> ShardRead<OrderRow>? {
        try next(in: shard, mapper.orderRow)
    }

    /// `nextReceipt` for one shard's worker (see `ShardRead`).
    public func nextReceipt(in shard: ShardSpec) throws(InputError) -> ShardRead<ReceiptRow>? {
        try next(in: shard, mapper.receiptRow)
    }

    private func next<Row>(in shard: ShardSpec, _ map: (DumpRecord) throws(UnreadableRecord) -> Row) throws(InputError)
        -> ShardRead<Row>?
    {
        let before = buffer.consumedBytes
        let read = try source.next(in: shard)
        try checkOrderColumn()
        guard let item = read else { return nil }
        itemCount += 1
        lastItemStart = Self.start(source.lastItemStart ?? before)
        switch item {
        case .elsewhere: return .elsewhere
        case .item(.malformed(let m), let ownID): return .malformed(m, ownID: ownID)
        case .item(.record(let r), let ownID):
            do throws(UnreadableRecord) { return .row(try map(r)) } catch { return .malformed(error, ownID: ownID) }
        }
    }

    /// The next record read as a receipts-dump row.
    public func nextReceipt() throws(InputError) -> Result<ReceiptRow, UnreadableRecord>? {
        let item = try next()
        try checkOrderColumn()
        switch item {
        case .none: return nil
        case .malformed(let m): return .failure(m)
        case .record(let r):
            do { return .success(try mapper.receiptRow(r)) } catch { return .failure(error) }
        }
    }
}
