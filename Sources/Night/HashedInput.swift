import Decompression
import DumpFormats
import IAPBasics
import StoreCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a dump through `body` while hashing its raw bytes: what summary.json and
/// reconciliation.json report of every input (path, SHA-256 of the file, records read).
/// `counted` learns how many of the file's bytes have been read (the progress line).
func readHashed(
    _ path: String, limits: Limits, counted: ByteCounter? = nil,
    _ body: (DumpReader) throws(InputError) -> Void
) throws(InputError) -> InputRecord {
    let hasher = try startHash(path)
    let reader = try DumpReader(path: path, limits: limits) { chunk in
        try? hasher.update(chunk)
        counted?.add(chunk.count)
    }
    try body(reader)
    return InputRecord(path: path, sha256: (try? hasher.finalize()).map(Digest.hex) ?? "", records: reader.itemCount)
}

/// The SHA-256 of a file's bytes, read once from start to end (for inputs read in place,
/// such as zip archives).
package func sha256(ofFile path: String) throws(InputError) -> String {
    let hasher = try startHash(path)
    let file = try FileByteStream(path: path) { chunk in try? hasher.update(chunk) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while try file.read(into: buffer) > 0 {}
    return (try? hasher.finalize()).map(Digest.hex) ?? ""
}

func startHash(_ path: String) throws(InputError) -> SHA256Hasher {
    do { return try SHA256Hasher() } catch { throw InputError(path: path, reason: "cannot hash: \(error)") }
}

/// A file's size on disk; 0 when it cannot be sized (it is read anyway, and its failure
/// reported there).
package func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 && st.st_size > 0 ? Int(st.st_size) : 0
}
