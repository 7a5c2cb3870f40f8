import IAPBasics

/// A file's content from a point inside it on, without reading what comes before: a plain
/// file from that byte, a gzip file from the start of a member at or before it
/// (`GzipCheckpoints`), the bytes between inflated and dropped. `explain` reads one record of
/// a night's dump again so, where `screen` saw it.
public enum ResumedInput {
    /// The content of `path` from byte `offset` of its content on. `member`: a gzip file's
    /// member start at or before `offset` (ignored for a plain file). A point that is no
    /// member's start, or past the end, is an error or a stream that ends early, never a hang.
    public static func open(path: String, at offset: Int64, member: GzipCheckpoints.Point, limits: Limits)
        throws(InputError) -> ByteStream
    {
        guard offset >= 0 else { throw InputError(path: path, reason: "no content before byte 0") }
        let head = try FileByteStream(path: path)
        let magic = UnsafeMutableRawBufferPointer.allocate(byteCount: 2, alignment: 1)
        defer { magic.deallocate() }
        let sniffed = InputCompression.sniff(
            Array(UnsafeRawBufferPointer(rebasing: magic[..<(try head.readFully(into: magic))])))
        guard sniffed == .gzip else { return try FileByteStream(path: path, offset: offset) }
        guard member.compressedOffset >= 0, member.decompressedOffset >= 0, member.decompressedOffset <= offset else {
            throw InputError(path: path, reason: "no gzip member starts where the index says", code: "gzip-corrupt")
        }
        let gzip = try GzipByteStream(
            source: try FileByteStream(path: path, offset: member.compressedOffset), path: path, limits: limits)
        try skip(offset - member.decompressedOffset, of: gzip)
        return gzip
    }

    private static func skip(_ count: Int64, of stream: ByteStream) throws(InputError) {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { scratch.deallocate() }
        var left = count
        while left > 0 {
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<Int(min(left, 1 << 16))]))
            if n == 0 { return }
            left -= Int64(n)
        }
    }
}
