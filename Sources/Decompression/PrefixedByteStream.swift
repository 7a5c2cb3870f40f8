/// Bytes already taken from a stream (to sniff its magic or format), put back in front of
/// the rest of it.
public final class PrefixedByteStream: ByteStream {
    private var prefix: [UInt8]
    private var prefixPosition = 0
    private let rest: ByteStream

    public init(prefix: [UInt8], rest: ByteStream) {
        self.prefix = prefix
        self.rest = rest
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let remaining = prefix.count - prefixPosition
        guard remaining > 0 else { return try rest.read(into: buffer) }
        let n = min(remaining, buffer.count)
        prefix.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[prefixPosition..<(prefixPosition + n)]))
        }
        prefixPosition += n
        if prefixPosition == prefix.count {
            prefix = []
            prefixPosition = 0
        }
        return n
    }
}
