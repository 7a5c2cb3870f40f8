import Decompression
import IAPBasics

/// The lines of a log file as bytes, with their numbers, plain or gzipped: for logs whose
/// lines are not dump records (store events: JWS, webhook bodies, API pages). Memory stays
/// flat: one chunk plus the longest line kept (lines past `Limits.maxRecordBytes` are
/// reported as too long, not kept).
public final class LogLineReader {
    public struct Line: Sendable {
        /// 1-based.
        public var number: Int
        /// Without surrounding whitespace; empty when `tooLong`.
        public var bytes: [UInt8]
        public var tooLong: Bool
    }

    public let path: String
    public let compression: InputCompression
    private let input: OpenedInput
    private let buffer: RecordBuffer
    private let lines: LineSplitter
    private var number = 0

    public convenience init(
        path: String, limits: Limits = .standard, buffers: ReadBuffers = .standard,
        rawObserver: FileByteStream.RawObserver? = nil
    ) throws(InputError) {
        try self.init(
            try InputOpener.open(path: path, limits: limits, buffers: buffers, observer: rawObserver),
            path: path, limits: limits, buffers: buffers)
    }

    public convenience init(
        bytes: [UInt8], name: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard
    ) throws(InputError) {
        try self.init(
            try InputOpener.open(bytes: bytes, name: name, limits: limits, buffers: buffers),
            path: name, limits: limits, buffers: buffers)
    }

    private init(_ input: OpenedInput, path: String, limits: Limits, buffers: ReadBuffers) throws(InputError) {
        self.path = path
        self.input = input
        compression = input.compression
        buffer = RecordBuffer(stream: input.stream, buffers: buffers)
        lines = LineSplitter(buffer: buffer, maxBytes: limits.maxRecordBytes)
        // A UTF-8 byte order mark is not part of the first line.
        try buffer.fill(toAtLeast: 3)
        let head = buffer.unconsumed
        if head.count >= 3, head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF { buffer.consume(3) }
    }

    /// Raw bytes of the file read so far.
    public var rawBytesRead: Int64 { input.rawBytesRead }

    /// The next line that is not blank; nil at the end of the file.
    public func next() throws(InputError) -> Line? {
        while let (length, tooLong) = try lines.nextLineLength() {
            number += 1
            defer { buffer.consume(length + 1) }
            if tooLong { return Line(number: number, bytes: [], tooLong: true) }
            let (text, _) = LineSplitter.trimmed(
                UnsafeRawBufferPointer(start: buffer.base + buffer.start, count: length))
            if text.isEmpty { continue }
            return Line(number: number, bytes: Array(text), tooLong: false)
        }
        return nil
    }

    /// Everything not read yet, as one document of at most `maxBytes` (nil: longer).
    public func rest(maxBytes: Int) throws(InputError) -> [UInt8]? {
        while buffer.end - buffer.start <= maxBytes, try buffer.fill() {}
        guard buffer.end - buffer.start <= maxBytes else { return nil }
        let out = Array(buffer.unconsumed)
        buffer.discardAll()
        return out
    }
}
