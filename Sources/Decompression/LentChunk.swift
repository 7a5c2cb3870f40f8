import Synchronization

/// Bytes a stream filled on a thread of its own, handed over whole instead of copied out:
/// `headroom` free bytes, then `count` bytes of the stream. A reader that adopts one puts
/// the unread end of the chunk before it into the headroom, so a record that straddles
/// the two stays contiguous, and gives the old chunk back to be filled again.
public final class LentChunk: @unchecked Sendable {
    public let base: UnsafeMutableRawPointer
    public let headroom: Int
    /// Room for the stream's bytes, after the headroom.
    public let capacity: Int
    public fileprivate(set) var count = 0

    init(headroom: Int, capacity: Int) {
        self.headroom = headroom
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: headroom + capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Forgets the first `n` bytes, moving the rest to the front.
    func dropFirst(_ n: Int) {
        let n = min(max(n, 0), count)
        (base + headroom).copyMemory(from: base + headroom + n, byteCount: count - n)
        count -= n
    }
}

/// A stream that lends its chunks (`PrefetchingByteStream`).
public protocol ChunkLender: ByteStream {
    /// The next chunk in stream order, or nil at the end. Not to be mixed with `read(into:)`.
    func borrowChunk() throws(InputError) -> LentChunk?
    /// A chunk its borrower is done with, to be filled again.
    func giveBack(_ chunk: LentChunk)
}

/// Chunks given back, kept for the filling thread: their pages stay mapped, where a fresh
/// megabyte costs a page fault every 4 KiB.
final class ChunkShelf: Sendable {
    private let kept = Mutex<[LentChunk]>([])
    private let most: Int
    let headroom: Int
    let capacity: Int

    init(headroom: Int, capacity: Int, most: Int) {
        self.headroom = headroom
        self.capacity = capacity
        self.most = most
    }

    func take() -> LentChunk {
        kept.withLock { $0.popLast() } ?? LentChunk(headroom: headroom, capacity: capacity)
    }

    func put(_ chunk: LentChunk) {
        guard chunk.headroom == headroom, chunk.capacity == capacity else { return }
        kept.withLock { if $0.count < most { $0.append(chunk) } }
    }

    /// Fills a chunk from `source`; nil at the end of the stream.
    func fill(from source: ByteStream) throws(InputError) -> LentChunk? {
        let chunk = take()
        let n = try source.readFully(into: UnsafeMutableRawBufferPointer(start: chunk.base + headroom, count: capacity))
        guard n > 0 else {
            put(chunk)
            return nil
        }
        chunk.count = n
        return chunk
    }
}
