import CZlib

/// Writes gzip (one member) through zlib's deflate: test fixtures, samples and benchmarks.
/// With `raw: true` it writes a bare deflate stream, as a zip entry holds it.
public final class GzipEncoder {
    private let zlib: ZlibHandle
    private var finished = false
    private var chunk = [UInt8](repeating: 0, count: 64 << 10)

    /// `level` 0–9 (zlib's); nil when zlib cannot start.
    public init?(level: Int32 = 6, raw: Bool = false) {
        guard let zlib = ZlibHandle(.deflate, framing: raw ? .raw : .gzip, level: level) else { return nil }
        self.zlib = zlib
    }

    /// Compresses `bytes` and appends whatever zlib emits to `out`.
    public func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        guard !finished, bytes.count > 0, let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, Int(UInt32.max))
            zlib.stream.pointee.next_in = UnsafeMutablePointer(
                mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
            zlib.stream.pointee.avail_in = UInt32(n)
            drain(flush: Z_NO_FLUSH, to: &out)
            offset += n
        }
    }

    public func append(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBytes { append($0, to: &out) }
    }

    /// Ends the member (trailer with CRC32 and size; raw: the final block); later appends are ignored.
    public func finish(to out: inout [UInt8]) {
        guard !finished else { return }
        zlib.stream.pointee.next_in = nil
        zlib.stream.pointee.avail_in = 0
        drain(flush: Z_FINISH, to: &out)
        finished = true
    }

    /// A whole gzip file for `bytes`.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        guard let encoder = GzipEncoder(level: level) else { return nil }
        var out = [UInt8]()
        encoder.append(bytes, to: &out)
        encoder.finish(to: &out)
        return out
    }

    private func drain(flush: Int32, to out: inout [UInt8]) {
        let z = zlib.stream
        while true {
            let (status, produced) = chunk.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                z.pointee.next_out = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
                z.pointee.avail_out = UInt32(buffer.count)
                let status = deflate(z, flush)
                return (status, buffer.count - Int(z.pointee.avail_out))
            }
            out.append(contentsOf: chunk[..<produced])
            guard status == Z_OK || status == Z_BUF_ERROR else { return }
            if flush != Z_FINISH, z.pointee.avail_in == 0, produced < chunk.count { return }
        }
    }
}
