#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `read(2)`, named apart from the method below.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// A file read with POSIX `read(2)`. An optional observer sees every raw chunk as it is
/// read (before any decompression), so the caller can hash and count the file's bytes.
public final class FileByteStream: ByteStream {
    public typealias RawObserver = (UnsafeRawBufferPointer) -> Void

    public let path: String
    private var descriptor: Int32
    private let observer: RawObserver?
    /// Raw bytes read so far.
    public private(set) var bytesRead: Int64 = 0

    /// `offset`: where in the file reading starts (a gzip member's start, a record's).
    public init(path: String, observer: RawObserver? = nil, offset: Int64 = 0) throws(InputError) {
        self.path = path
        self.observer = observer
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(path: path, reason: "cannot open: \(FileByteStream.lastErrorText())", code: "cannot-open")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let text = FileByteStream.lastErrorText()
            close(fd)
            throw InputError(path: path, reason: "cannot stat: \(text)", code: "cannot-open")
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            close(fd)
            throw InputError(path: path, reason: "is a directory, not a file", code: "cannot-open")
        }
        if offset != 0 {
            guard offset > 0, offset <= Int64(info.st_size), lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
                close(fd)
                throw InputError(path: path, reason: "cannot start reading at byte \(offset)", code: "cannot-open")
            }
        }
        self.descriptor = fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard descriptor >= 0, let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = posixRead(descriptor, base, buffer.count)
            if n > 0 {
                bytesRead += Int64(n)
                observer?(UnsafeRawBufferPointer(start: base, count: n))
                return n
            }
            if n == 0 {
                close(descriptor)
                descriptor = -1
                return 0
            }
            guard errno == EINTR else {
                throw InputError(
                    path: path, reason: "read failed: \(FileByteStream.lastErrorText())", code: "read-failed")
            }
        }
    }

    static func lastErrorText() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }
}
