import CZlib

/// One zlib stream (inflate or deflate) at a fixed address — zlib keeps a pointer back to
/// it — released with the matching `…End` call when the owner goes away.
final class ZlibHandle {
    enum Mode { case inflate, deflate }

    /// How the deflate data is wrapped: gzip (RFC 1952, `16 + MAX_WBITS`) or bare, as zip
    /// entries hold it (RFC 1951, `-MAX_WBITS`).
    enum Framing {
        case gzip, raw

        var windowBits: Int32 { self == .gzip ? 16 + MAX_WBITS : -MAX_WBITS }
    }

    let stream: UnsafeMutablePointer<z_stream>
    private let mode: Mode

    /// nil when zlib cannot allocate its state.
    init?(_ mode: Mode, framing: Framing = .gzip, level: Int32 = Z_DEFAULT_COMPRESSION) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.mode = mode
        let size = Int32(MemoryLayout<z_stream>.size)
        let status: Int32
        switch mode {
        case .inflate:
            status = inflateInit2_(stream, framing.windowBits, ZLIB_VERSION, size)
        case .deflate:
            status = deflateInit2_(
                stream, level, Z_DEFLATED, framing.windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, size)
        }
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        switch mode {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// zlib's own words for the last error, or `fallback` when it left none.
    func message(or fallback: String) -> String {
        guard let text = stream.pointee.msg else { return fallback }
        return String(cString: text)
    }
}
