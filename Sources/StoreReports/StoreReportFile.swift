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
    @discardableResult
    public static func read(_ path: String, limits: Limits = .standard,
                            _ body: (StoreReportReader) throws(InputError) -> Void) throws(InputError) -> Container {
        let magic = try firstBytes(path)
        if ZipArchive.isZip(magic) {
            let archive = try ZipArchive(path: path, limits: limits)
            let reports = archive.entries.filter { !$0.isDirectory && !$0.name.hasPrefix("__MACOSX/") }
            guard !reports.isEmpty else {
                throw InputError(path: path, reason: "the archive holds no report", code: "not-a-store-report")
            }
            for entry in reports {
                try body(try StoreReportReader(stream: try archive.open(entry), file: path + "/" + entry.name, limits: limits))
            }
            return .zip
        }
        let input = try InputOpener.open(path: path, limits: limits)
        try body(try StoreReportReader(stream: input.stream, file: path, limits: limits))
        return input.compression == .gzip ? .gzip : .plain
    }

    private static func firstBytes(_ path: String) throws(InputError) -> [UInt8] {
        let file = try FileByteStream(path: path)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 1)
        defer { scratch.deallocate() }
        let n = try file.readFully(into: scratch)
        return Array(UnsafeRawBufferPointer(rebasing: scratch[..<n]))
    }
}
