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

/// An opened input: its decompressed bytes, how it was stored, and its raw byte count.
public struct OpenedInput {
    public let stream: ByteStream
    public let compression: InputCompression
    private let file: FileByteStream

    /// Raw (compressed) bytes read from the file so far.
    public var rawBytesRead: Int64 { file.bytesRead }

    init(stream: ByteStream, compression: InputCompression, file: FileByteStream) {
        self.stream = stream
        self.compression = compression
        self.file = file
    }
}

public enum InputOpener {
    /// Opens `path` and returns the stream of its content, decompressed when it is gzip.
    /// `observer` sees every raw chunk of the file, compressed or not.
    public static func open(path: String, limits: Limits = .standard,
                            observer: FileByteStream.RawObserver? = nil) throws(InputError) -> OpenedInput {
        let file = try FileByteStream(path: path, observer: observer)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2, alignment: 1)
        defer { scratch.deallocate() }
        let count = try file.readFully(into: scratch)
        let magic = [UInt8](UnsafeRawBufferPointer(rebasing: scratch[..<count]))
        let compression = InputCompression.sniff(magic)
        let raw = PrefixedByteStream(prefix: magic, rest: file)
        switch compression {
        case .none:
            return OpenedInput(stream: raw, compression: .none, file: file)
        case .gzip:
            let gzip = try GzipByteStream(source: raw, path: path, limits: limits)
            // Inflating runs on its own thread, a few chunks ahead of the parser.
            return OpenedInput(stream: PrefetchingByteStream(source: gzip), compression: .gzip, file: file)
        }
    }
}
