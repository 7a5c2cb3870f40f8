import Decompression

/// A window on a byte stream that record readers scan in place: bytes `start..<end` of
/// `base` are read and not yet consumed. Refilling moves the unconsumed bytes to the
/// front, so a reader keeps its positions relative to `start`. Memory is one chunk plus
/// the longest record kept (readers stop keeping a record past `Limits.maxRecordBytes`).
final class RecordBuffer {
    /// What one `fill` asks the stream for, at least (`ReadBuffers.chunkBytes`).
    private let chunkBytes: Int
    private let stream: ByteStream
    /// Valid until the next `fill`.
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var start = 0
    private(set) var end = 0
    /// Bytes of the stream moved out of the front of `base` so far.
    private var dropped: Int64 = 0
    /// The stream has no more bytes.
    private(set) var exhausted = false

    init(stream: ByteStream, buffers: ReadBuffers) {
        self.stream = stream
        chunkBytes = max(buffers.chunkBytes, ReadBuffers.minimumBytes)
        capacity = chunkBytes
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
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
        if start > 0 {
            dropped += Int64(start)
            let kept = end - start
            // copyMemory is memmove: the regions may overlap.
            if kept > 0 { UnsafeMutableRawPointer(base).copyMemory(from: base + start, byteCount: kept) }
            start = 0
            end = kept
        }
        if capacity - end < chunkBytes / 2 {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            grown.initialize(from: base, count: end)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        let n = try stream.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: capacity - end))
        guard n > 0 else {
            exhausted = true
            return false
        }
        end += n
        return true
    }
}
