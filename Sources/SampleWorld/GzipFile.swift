import Decompression

#if canImport(Glibc)
    import Glibc
#endif

/// A file written as it goes, through a buffer of a megabyte.
final class OutputFile {
    private let fd: Int32
    private var buffer: [UInt8] = []
    let path: String

    init(_ path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SampleWriteError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { Glibc.close(fd) }

    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        if buffer.count > 1 << 20 { try flush() }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Appends through `body`, which adds to the buffer directly.
    func withBuffer(_ body: (inout [UInt8]) -> Void) throws {
        body(&buffer)
        if buffer.count > 1 << 20 { try flush() }
    }

    func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes {
                Glibc.write(fd, $0.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            guard n > 0 else {
                throw SampleWriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A gzip file of one member compressed as it is written (memory stays flat for a world of millions).
final class GzipFile {
    private let file: OutputFile
    private let encoder: GzipEncoder

    init(_ path: String, level: Int32 = 6) throws {
        file = try OutputFile(path)
        guard let encoder = GzipEncoder(level: level) else {
            throw SampleWriteError(description: "cannot start compressing \(path)")
        }
        self.encoder = encoder
    }

    func write(_ text: String) throws {
        var t = text
        try file.withBuffer { buffer in t.withUTF8 { encoder.append(UnsafeRawBufferPointer($0), to: &buffer) } }
    }

    func close() throws {
        try file.withBuffer { encoder.finish(to: &$0) }
        try file.flush()
    }
}

/// A gzip file of many members, each compressed elsewhere (on any thread) and written in
/// order: RFC 1952 reads them as one stream, and so do our readers, `zcat` and the databases'
/// import tools.
final class GzipMembersFile {
    private let file: OutputFile

    init(_ path: String) throws { file = try OutputFile(path) }

    /// `text` as a member of its own.
    func write(_ text: String) throws { try writeMember(SampleText.gzipMember(text, for: file.path)) }

    /// A member `SampleText.gzipMember` made.
    func writeMember(_ member: [UInt8]) throws { try file.write(member) }

    func close() throws { try file.flush() }
}

enum SampleText {
    /// Fast deflate (ISA-L's level 1): a big world is written in minutes, not its compression.
    static func gzipMember(_ text: String, for path: String) throws -> [UInt8] {
        guard !text.isEmpty else { return [] }
        guard let member = FastGzip.member(Array(text.utf8)) else {
            throw SampleWriteError(description: "cannot start compressing \(path)")
        }
        return member
    }
}
