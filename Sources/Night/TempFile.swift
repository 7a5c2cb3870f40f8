import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file written under `.<name>.tmp-<pid>` and renamed to `<name>` when published. Writes
/// gather in a buffer and reach the file 64 KiB at a time: the reports are written a line at
/// a time, and a system call a line was most of their cost (a larger buffer is slower: the
/// system copies it out of the cache no longer).
package final class TempFile {
    let temporary: String
    let final: String
    private let fd: Int32
    private var published = false
    private var buffer: [UInt8] = []
    private static let chunk = 1 << 16

    package init(in directory: String, for name: String) throws {
        final = (directory as NSString).appendingPathComponent(name)
        temporary = (directory as NSString).appendingPathComponent(".\(name).tmp-\(getpid())")
        fd = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReportWriter.WriteError(
                description: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(fd)
        if !published { unlink(temporary) }
    }

    package func write(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunk { try flush() }
    }

    /// Lets `body` append straight to what is buffered (no array of its own to copy).
    package func write(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count >= Self.chunk { try flush() }
    }

    /// Puts what is buffered in the file.
    private func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw ReportWriter.WriteError(
                    description: "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Appends this file's content to `other`: inside the system, or where it cannot, through
    /// a buffer.
    func copy(into other: TempFile) throws {
        try flush()
        try other.flush()
        var offset: off_t = 0
        while true {
            let n = sendfile(other.fd, fd, &offset, 1 << 30)
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            if n == 0 { return }
            break
        }
        var chunk = [UInt8](repeating: 0, count: Self.chunk)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            guard n >= 0 else { throw ReportWriter.WriteError(description: "cannot read \(temporary)") }
            if n == 0 { return }
            try other.write(chunk[0..<n])
            offset += off_t(n)
        }
    }

    package func sync() throws {
        try flush()
        guard fsync(fd) == 0 else {
            throw ReportWriter.WriteError(description: "cannot sync \(temporary): \(String(cString: strerror(errno)))")
        }
    }

    package func publish() throws {
        try flush()
        guard rename(temporary, final) == 0 else {
            throw ReportWriter.WriteError(
                description: "cannot rename \(temporary) to \(final): \(String(cString: strerror(errno)))")
        }
        published = true
    }

    package func discard() {
        buffer = []
        if !published { unlink(temporary) }
        published = true
    }
}
