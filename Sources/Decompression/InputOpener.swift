import IAPBasics

/// How an input file is stored, judged by its first bytes whatever its name.
public enum InputCompression: String, Sendable, Equatable {
    case none
    case gzip

    /// gzip: RFC 1952 ID1 ID2 = 1f 8b.
    static func sniff(_ magic: [UInt8]) -> InputCompression {
        magic.count >= 2 && magic[0] == 0x1F && magic[1] == 0x8B ? .gzip : .none
    }
}

/// A stream that counts the raw bytes it has handed out: a file, or bytes in memory.
protocol RawByteStream: ByteStream {
    var bytesRead: Int64 { get }
}

extension FileByteStream: RawByteStream {}
extension MemoryByteStream: RawByteStream {}

/// An opened input: its decompressed bytes, how it was stored, and its raw byte count.
public struct OpenedInput {
    public let stream: ByteStream
    public let compression: InputCompression
    private let raw: RawByteStream
    /// Where a gzip input's members start (nil for a plain one).
    public let checkpoints: GzipCheckpoints?

    /// Raw (compressed) bytes read from the file so far.
    public var rawBytesRead: Int64 { raw.bytesRead }

    init(stream: ByteStream, compression: InputCompression, raw: RawByteStream, checkpoints: GzipCheckpoints? = nil) {
        self.stream = stream
        self.compression = compression
        self.raw = raw
        self.checkpoints = checkpoints
    }
}

public enum InputOpener {
    /// Opens `path` and returns the stream of its content, decompressed when it is gzip.
    /// `observer` sees every raw chunk of the file, compressed or not.
    public static func open(
        path: String, limits: Limits = .standard, buffers: ReadBuffers = .standard,
        observer: FileByteStream.RawObserver? = nil
    ) throws(InputError) -> OpenedInput {
        try open(try FileByteStream(path: path, observer: observer), path: path, limits: limits, buffers: buffers)
    }

    /// `bytes` read as the content of a file named `name` would be (`name` only names the
    /// input in messages): decompressed when they are gzip.
    public static func open(
        bytes: [UInt8], name: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard
    ) throws(InputError) -> OpenedInput {
        try open(MemoryByteStream(bytes), path: name, limits: limits, buffers: buffers)
    }

    private static func open(
        _ file: RawByteStream, path: String, limits: Limits,
        buffers: ReadBuffers
    ) throws(InputError) -> OpenedInput {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2, alignment: 1)
        defer { scratch.deallocate() }
        let count = try file.readFully(into: scratch)
        let magic = [UInt8](UnsafeRawBufferPointer(rebasing: scratch[..<count]))
        let compression = InputCompression.sniff(magic)
        let raw = PrefixedByteStream(prefix: magic, rest: file)
        switch compression {
        case .none:
            return OpenedInput(stream: raw, compression: .none, raw: file)
        case .gzip:
            let checkpoints = GzipCheckpoints()
            let gzip = try GzipByteStream(
                source: raw, path: path, limits: limits, inputChunkBytes: buffers.gzipInputBytes,
                checkpoints: checkpoints)
            guard buffers.prefetchChunks > 0 else {
                return OpenedInput(stream: gzip, compression: .gzip, raw: file, checkpoints: checkpoints)
            }
            // Inflating runs on its own thread, a few chunks ahead of the parser.
            let ahead = PrefetchingByteStream(
                source: gzip, chunkSize: max(buffers.chunkBytes, ReadBuffers.minimumBytes),
                depth: buffers.prefetchChunks)
            return OpenedInput(stream: ahead, compression: .gzip, raw: file, checkpoints: checkpoints)
        }
    }
}
