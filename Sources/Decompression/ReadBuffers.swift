/// How much of an input is held between its source and its parser, and whether gzip is
/// inflated on a thread of its own. Speed and memory only: every setting reads the same
/// bytes into the same records (tests read through tiny buffers to show it). The tool reads
/// files of gigabytes with `.standard`; inputs of a few kilobytes (the fuzz harnesses) read
/// much faster with `.small`, which allocates kilobytes instead of megabytes per input and
/// starts no thread.
public struct ReadBuffers: Sendable, Equatable {
    /// Bytes a record reader asks its stream for at a time; its buffer grows past this only
    /// for a record that long. At least 64.
    public var chunkBytes = 1 << 20
    /// Compressed bytes a gzip stream takes from its source at a time. At least 64.
    public var gzipInputBytes = 256 << 10
    /// Inflated chunks (of `chunkBytes`) made ahead on a thread of their own, so inflating
    /// runs beside parsing; 0 inflates on the reader's thread, as it reads.
    public var prefetchChunks = 4

    public init() {}

    public init(chunkBytes: Int, gzipInputBytes: Int, prefetchChunks: Int) {
        self.chunkBytes = chunkBytes
        self.gzipInputBytes = gzipInputBytes
        self.prefetchChunks = prefetchChunks
    }

    public static let standard = ReadBuffers()

    /// For inputs of kilobytes: 16 KiB chunks (below the sizes allocators map afresh each
    /// time), no read-ahead thread.
    public static let small = ReadBuffers(chunkBytes: 16 << 10, gzipInputBytes: 16 << 10, prefetchChunks: 0)

    /// The smallest buffer a reader works with: room for the longest UTF-8 sequence, and
    /// for a gzip member's magic after the bytes kept from the last one.
    public static let minimumBytes = 64
}
