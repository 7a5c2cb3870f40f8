import CISAL

/// Gzip written with ISA-L's level 1 (igzip): several times faster than zlib at a ratio near
/// zlib's level 1. For files we write many of and read back ourselves (benchmark worlds),
/// where the time to write matters more than a few per cent of size.
public enum FastGzip {
    /// One whole gzip member for `bytes`; nil when ISA-L refuses, or for 2 GiB or more.
    public static func member(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count <= Int(UInt32.max / 2) else { return nil }
        var stream = isal_zstream()
        isal_deflate_init(&stream)
        let levelBufferSize = Int(iapscreen_isal_level1_buffer_size)
        let levelBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: levelBufferSize)
        defer { levelBuffer.deallocate() }
        stream.level = 1
        stream.level_buf = levelBuffer
        stream.level_buf_size = UInt32(levelBufferSize)
        stream.gzip_flag = UInt16(IGZIP_GZIP)
        stream.end_of_stream = 1
        stream.flush = UInt16(NO_FLUSH)
        // Deflate never grows data by more than its stored blocks' headers; the loop copes if it did.
        var out = [UInt8](repeating: 0, count: bytes.count + bytes.count / 16 + 64)
        var produced = 0
        let ok = bytes.withUnsafeBufferPointer { input -> Bool in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            while true {
                if produced == out.count { out += [UInt8](repeating: 0, count: out.count) }
                let status = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress.map { $0 + produced }
                    stream.avail_out = UInt32(buffer.count - produced)
                    let status = isal_deflate(&stream)
                    produced = buffer.count - Int(stream.avail_out)
                    return status
                }
                guard status == COMP_OK else { return false }
                if stream.internal_state.state == ZSTATE_END { return true }
            }
        }
        guard ok else { return nil }
        out.removeSubrange(produced...)
        return out
    }
}
