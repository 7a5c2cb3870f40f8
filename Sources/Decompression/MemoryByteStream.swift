/// Bytes already in memory, read as a stream: an input handed over whole (a fuzz input, a
/// test's fixture) read the way a file is, without writing it to disk first.
public final class MemoryByteStream: ByteStream {
    private let bytes: [UInt8]
    /// Bytes handed out so far.
    public private(set) var bytesRead: Int64 = 0
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        let start = position
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: buffer[..<n]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: source[start..<(start + n)]))
        }
        position += n
        bytesRead += Int64(n)
        return n
    }
}
