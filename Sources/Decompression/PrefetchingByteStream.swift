/// Reads its source on a thread of its own, a few chunks ahead, so that inflating a gzip
/// file (and hashing its raw bytes) runs beside the parsing of what was already inflated.
/// Memory stays bounded: at most `depth` chunks wait.
public final class PrefetchingByteStream: ByteStream {
    private let chunks: ReadAhead<[UInt8]>
    private var current: [UInt8] = []
    private var offset = 0

    public init(source: ByteStream, chunkSize: Int = 1 << 20, depth: Int = 4) {
        // The source is handed to the reading thread and never touched here again.
        nonisolated(unsafe) let source = source
        chunks = ReadAhead(depth: depth) { () throws(InputError) -> [UInt8]? in
            // Read straight into the chunk handed over: no zeroing, no second copy.
            var failure: InputError?
            let chunk = [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
                do throws(InputError) {
                    count = try source.readFully(into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    failure = error
                    count = 0
                }
            }
            if let failure { throw failure }
            return chunk.isEmpty ? nil : chunk
        }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if offset == current.count {
            guard let next = try chunks.next() else { return 0 }
            current = next
            offset = 0
        }
        let n = min(buffer.count, current.count - offset)
        let start = offset
        current.withUnsafeBytes { src in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: src[start..<start + n]))
        }
        offset += n
        return n
    }
}
