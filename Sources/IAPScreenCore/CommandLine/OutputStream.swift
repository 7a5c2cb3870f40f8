#if canImport(Glibc)
    import Glibc
#endif

/// Buffered writes to a file descriptor: stdout carries data, stderr the summary and errors.
public final class OutputStream {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let flushAt = 1 << 16

    public init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(flushAt)
    }

    public static func standardOutput() -> OutputStream { OutputStream(fd: 1) }
    public static func standardError() -> OutputStream { OutputStream(fd: 2) }

    public func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= flushAt { flush() }
    }

    public func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushAt { flush() }
    }

    public func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                break  // a closed pipe: nothing more can be said there
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
