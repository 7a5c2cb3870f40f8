import Decompression
import IAPBasics

/// One `--store-report` path, opened whatever it is: a `.zip` holding one or more reports
/// (as Google ships them), a gzip file (as Apple ships them), or plain text — told apart by
/// their first bytes, not their names. Each report inside is read as it streams.
public enum StoreReportFile {
    public enum Container: String, Sendable {
        case plain, gzip, zip
    }

    /// Calls `body` with a reader for each report the file holds, in order; returns how the
    /// file was stored. Throws when the file, an archive entry or a header cannot be read.
    /// `buffers` sets speed and memory, not what is read.
    @discardableResult
    public static func read(
        _ path: String, limits: Limits = .standard, buffers: ReadBuffers = .standard,
        _ body: (StoreReportReader) throws(InputError) -> Void
    ) throws(InputError) -> Container {
        let magic = try firstBytes(path)
        if ZipArchive.isZip(magic) {
            try readArchive(try ZipArchive(path: path, limits: limits), limits: limits, buffers: buffers, body)
            return .zip
        }
        let input = try InputOpener.open(path: path, limits: limits, buffers: buffers)
        try body(try StoreReportReader(stream: input.stream, file: path, limits: limits, buffers: buffers))
        return input.compression == .gzip ? .gzip : .plain
    }

    /// The same for a file already in memory: `bytes`, named `name` in every message and
    /// location (`name/entry.csv` inside a zip).
    @discardableResult
    public static func read(
        bytes: [UInt8], name: String, limits: Limits = .standard, buffers: ReadBuffers = .standard,
        _ body: (StoreReportReader) throws(InputError) -> Void
    ) throws(InputError) -> Container {
        if ZipArchive.isZip(Array(bytes.prefix(4))) {
            try readArchive(
                try ZipArchive(bytes: bytes, name: name, limits: limits), limits: limits, buffers: buffers, body)
            return .zip
        }
        let input = try InputOpener.open(bytes: bytes, name: name, limits: limits, buffers: buffers)
        try body(try StoreReportReader(stream: input.stream, file: name, limits: limits, buffers: buffers))
        return input.compression == .gzip ? .gzip : .plain
    }

    /// Each report in the archive, in order (folders and macOS resource forks are not reports).
    private static func readArchive(
        _ archive: ZipArchive, limits: Limits, buffers: ReadBuffers,
        _ body: (StoreReportReader) throws(InputError) -> Void
    ) throws(InputError) {
        let reports = archive.entries.filter { !$0.isDirectory && !$0.name.hasPrefix("__MACOSX/") }
        guard !reports.isEmpty else {
            throw InputError(path: archive.path, reason: "the archive holds no report", code: "not-a-store-report")
        }
        for entry in reports {
            try body(
                try StoreReportReader(
                    stream: try archive.open(entry), file: archive.path + "/" + entry.name,
                    limits: limits, buffers: buffers))
        }
    }

    private static func firstBytes(_ path: String) throws(InputError) -> [UInt8] {
        let file = try FileByteStream(path: path)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        defer { scratch.deallocate() }
        let n = try file.readFully(into: scratch)
        return Array(UnsafeRawBufferPointer(rebasing: scratch[..<n]))
    }
}
