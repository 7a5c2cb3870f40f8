import Decompression

/// A window on a byte stream that record readers scan in place: bytes `start..<end` of
/// `base` are read and not yet consumed. Refilling moves the unconsumed bytes to the
/// front, so a reader keeps its positions relative to `start`. Memory is one chunk plus
/// the longest record kept (readers stop keeping a record past `Limits.maxRecordBytes`).
final class RecordBuffer {
    /// What one `fill` asks the stream for, at least (`ReadBuffers.chunkBytes`).
    private let chunkBytes: Int
    private let stream: ByteStream
    /// The stream as a lender of whole chunks: those are read where they lie, not copied.
    private let lender: ChunkLender?
    /// Valid until the next `fill`: `own`, or the lent chunk's memory.
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// The buffer this reader allocated: for a stream that does not lend, and for a record
    /// longer than a lent chunk's headroom.
    private var own: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The chunk `base` points into, if it is one.
    private var lent: LentChunk?
    private(set) var start = 0
    private(set) var end = 0
    /// Stream offset of `base[0]`: bytes of the stream before it.
    private var dropped: Int64 = 0
    /// The stream has no more bytes.
    private(set) var exhausted = false

    init(stream: ByteStream, buffers: ReadBuffers) {
        self.stream = stream
        lender = stream as? ChunkLender
        chunkBytes = max(buffers.chunkBytes, ReadBuffers.minimumBytes)
        capacity = chunkBytes
        own = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        base = own
    }

    deinit {
        own.deallocate()
        if let lent { lender?.giveBack(lent) }
    }

    /// Where `start` stands in the stream: bytes consumed since its first.
    var consumedBytes: Int64 { dropped + Int64(start) }

    var unconsumed: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: end - start)
    }

    func consume(_ count: Int) {
        start = min(start + max(count, 0), end)
    }

    /// Drops everything read so far (a record too long to keep).
    func discardAll() {
        start = end
    }

    /// Reads until `count` bytes are unconsumed or the stream ends (a stream may hand out
    /// a few bytes at a time).
    func fill(toAtLeast count: Int) throws(InputError) {
        while end - start < count, try fill() {}
    }

    /// Reads more bytes behind the unconsumed ones; false once the stream has ended.
    @discardableResult
    func fill() throws(InputError) -> Bool {
        guard !exhausted else { return false }
        if let lender { return try adopt(from: lender) }
        keepUnconsumedInOwn(room: chunkBytes / 2)
        let n = try stream.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: capacity - end))
        guard n > 0 else {
            exhausted = true
            return false
        }
        end += n
        return true
    }

    /// The next lent chunk becomes the buffer, the unconsumed bytes put in its headroom just
    /// before its own; when they do not fit there (a long record), both are copied into `own`.
    private func adopt(from lender: ChunkLender) throws(InputError) -> Bool {
        guard let chunk = try lender.borrowChunk() else {
            exhausted = true
            return false
        }
        let kept = end - start
        let streamEnd = dropped + Int64(end)
        if kept <= chunk.headroom {
            let at = chunk.headroom - kept
            if kept > 0 { (chunk.base + at).copyMemory(from: base + start, byteCount: kept) }
            if let old = lent { lender.giveBack(old) }
            lent = chunk
            base = chunk.base.assumingMemoryBound(to: UInt8.self)
            start = at
            end = chunk.headroom + chunk.count
            dropped = streamEnd - Int64(chunk.headroom)
            return true
        }
        keepUnconsumedInOwn(room: chunk.count)
        UnsafeMutableRawPointer(base + end).copyMemory(from: chunk.base + chunk.headroom, byteCount: chunk.count)
        end += chunk.count
        lender.giveBack(chunk)
        return true
    }

    /// Moves the unconsumed bytes to the front of `own` (from wherever `base` is) with at
    /// least `room` bytes free behind them.
    private func keepUnconsumedInOwn(room: Int) {
        let kept = end - start
        dropped += Int64(start)
        if capacity - kept < room {
            var grown = capacity
            while grown - kept < room { grown *= 2 }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            bigger.initialize(from: base + start, count: kept)
            own.deallocate()
            own = bigger
            capacity = grown
        } else if kept > 0, base + start != own {
            // copyMemory is memmove: within `own` the regions may overlap.
            UnsafeMutableRawPointer(own).copyMemory(from: base + start, byteCount: kept)
        }
        base = own
        if let old = lent {
            lender?.giveBack(old)
            lent = nil
        }
        start = 0
        end = kept
    }
}
