/// Reads its source on a thread of its own, a few chunks ahead, so that inflating a gzip
/// file (and hashing its raw bytes) runs beside the parsing of what was already inflated.
/// Memory stays bounded: at most `depth` chunks wait, and chunks given back are filled again.
public final class PrefetchingByteStream: ChunkLender {
    private let chunks: ReadAhead<LentChunk>
    private let shelf: ChunkShelf
    /// The chunk `read(into:)` copies from.
    private var current: LentChunk?
    private var offset = 0

    public init(source: ByteStream, chunkSize: Int = 1 << 20, depth: Int = 4) {
        // Room for the unread end of the chunk before: a record straddling two chunks.
        let shelf = ChunkShelf(headroom: max(4 << 10, chunkSize / 8), capacity: chunkSize, most: depth + 2)
        self.shelf = shelf
        // The source is handed to the reading thread and never touched here again.
        nonisolated(unsafe) let source = source
        chunks = ReadAhead(depth: depth) { () throws(InputError) -> LentChunk? in
            try shelf.fill(from: source)
        }
    }

    public func borrowChunk() throws(InputError) -> LentChunk? {
        // What `read(into:)` left of its chunk comes first (`ResumedInput` skips that way).
        if let chunk = current {
            current = nil
            if offset < chunk.count {
                chunk.dropFirst(offset)
                return chunk
            }
            shelf.put(chunk)
        }
        return try chunks.next()
    }

    public func giveBack(_ chunk: LentChunk) {
        shelf.put(chunk)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if current == nil || offset == current?.count {
            if let done = current { shelf.put(done) }
            current = nil
            guard let next = try chunks.next() else { return 0 }
            current = next
            offset = 0
        }
        guard let chunk = current, let destination = buffer.baseAddress else { return 0 }
        let n = min(buffer.count, chunk.count - offset)
        destination.copyMemory(from: chunk.base + chunk.headroom + offset, byteCount: n)
        offset += n
        return n
    }
}
