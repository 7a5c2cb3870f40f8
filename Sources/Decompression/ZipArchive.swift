import CZlib
import IAPBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A zip archive read in place: its central directory, then each entry's data through its
/// local header, stored or raw-deflated, CRC-32 checked. Nothing is extracted to disk. The
/// archive is a file read at offsets, or bytes already in memory.
///
/// APPNOTE.TXT (PKWARE) 4.3, every number little-endian:
///   local file header   50 4b 03 04 | version(2) flags(2) method(2) time(2) date(2) crc32(4)
///                       csize(4) usize(4) name_len(2) extra_len(2) | name | extra | data
///   central directory   50 4b 01 02 | made_by(2) version(2) flags(2) method(2) time(2) date(2)
///                       crc32(4) csize(4) usize(4) name_len(2) extra_len(2) comment_len(2)
///                       disk(2) internal(2) external(4) local_offset(4) | name | extra | comment
///   end of central dir  50 4b 05 06 | disk(2) cd_disk(2) entries_here(2) entries(2)
///                       cd_size(4) cd_offset(4) comment_len(2) | comment (≤ 65535)
/// The central directory's sizes and CRC are the ones believed (a local header written with
/// flag bit 3 has zeros there). ZIP64 (0xFFFF / 0xFFFFFFFF markers), several disks and
/// encryption (flag bit 0) are refused; methods 0 (stored) and 8 (deflate) are read.
public final class ZipArchive {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var method: UInt16
        public var crc32: UInt32
        public var compressedSize: Int64
        public var uncompressedSize: Int64
        var localHeaderOffset: Int64

        /// A folder entry (`name/`), which holds no data.
        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    public let path: String
    public let entries: [Entry]
    private let file: ArchiveBytes
    private let limits: Limits

    static let localSignature: UInt32 = 0x0403_4B50
    static let centralSignature: UInt32 = 0x0201_4B50
    static let endSignature: UInt32 = 0x0605_4B50

    /// True when `magic` (the first four bytes of a file) starts a zip archive.
    public static func isZip(_ magic: [UInt8]) -> Bool {
        magic.count >= 4 && magic[0] == 0x50 && magic[1] == 0x4B
            && ((magic[2] == 0x03 && magic[3] == 0x04) || (magic[2] == 0x05 && magic[3] == 0x06))
    }

    public convenience init(path: String, limits: Limits = .standard) throws(InputError) {
        try self.init(try PositionalFile(path: path), path: path, limits: limits)
    }

    /// The archive `bytes`, named `name` in messages.
    public convenience init(bytes: [UInt8], name: String, limits: Limits = .standard) throws(InputError) {
        try self.init(MemoryArchiveBytes(bytes), path: name, limits: limits)
    }

    private init(_ file: ArchiveBytes, path: String, limits: Limits) throws(InputError) {
        self.path = path
        self.limits = limits
        self.file = file
        entries = try ZipArchive.readDirectory(file, path: path, limits: limits)
    }

    private static func corrupt(_ path: String, _ reason: String) -> InputError {
        InputError(path: path, reason: reason, code: "zip-corrupt")
    }

    private static func readDirectory(_ file: ArchiveBytes, path: String, limits: Limits) throws(InputError) -> [Entry]
    {
        // The end record is in the last 22 + 65535 bytes; search back for its signature.
        let tailLength = min(file.size, Int64(22 + 65_535))
        let tail = try file.read(at: file.size - tailLength, count: Int(tailLength))
        var endAt: Int?
        var i = tail.count - 22
        while i >= 0 {
            if LittleEndian.u32(tail, i) == endSignature {
                endAt = i
                break
            }
            i -= 1
        }
        guard let e = endAt else { throw corrupt(path, "not a zip archive: no end of central directory record") }
        let diskNumber = LittleEndian.u16(tail, e + 4)
        let directoryDisk = LittleEndian.u16(tail, e + 6)
        let entriesHere = LittleEndian.u16(tail, e + 8)
        let entryCount = LittleEndian.u16(tail, e + 10)
        let directorySize = LittleEndian.u32(tail, e + 12)
        let directoryOffset = LittleEndian.u32(tail, e + 16)
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw InputError(path: path, reason: "ZIP64 archives are not supported", code: "zip-unsupported")
        }
        guard diskNumber == 0, directoryDisk == 0, entriesHere == entryCount else {
            throw InputError(
                path: path, reason: "archives split over several disks are not supported", code: "zip-unsupported")
        }
        guard Int(entryCount) <= limits.maxZipEntries else {
            throw InputError(
                path: path,
                reason: "the archive lists \(entryCount) entries, more than the cap of \(limits.maxZipEntries)",
                code: "decompression-limit")
        }
        // Names, extras and comments of at most `maxZipEntries` entries: far below this.
        guard Int(directorySize) <= 16 << 20 else {
            throw InputError(
                path: path, reason: "the central directory is \(directorySize) bytes, more than the cap of 16 MiB",
                code: "decompression-limit")
        }
        let endOffset = file.size - tailLength + Int64(e)
        guard Int64(directoryOffset) + Int64(directorySize) <= endOffset else {
            throw corrupt(
                path,
                "the central directory (offset \(directoryOffset), \(directorySize) bytes) runs past its end record")
        }
        let directory = try file.read(at: Int64(directoryOffset), count: Int(directorySize))
        var entries: [Entry] = []
        var at = 0
        for n in 0..<Int(entryCount) {
            guard at + 46 <= directory.count, LittleEndian.u32(directory, at) == centralSignature else {
                throw corrupt(path, "central directory entry \(n + 1) is missing or cut short")
            }
            let flags = LittleEndian.u16(directory, at + 8)
            let method = LittleEndian.u16(directory, at + 10)
            let crc = LittleEndian.u32(directory, at + 16)
            let compressed = LittleEndian.u32(directory, at + 20)
            let uncompressed = LittleEndian.u32(directory, at + 24)
            let nameLength = Int(LittleEndian.u16(directory, at + 28))
            let extraLength = Int(LittleEndian.u16(directory, at + 30))
            let commentLength = Int(LittleEndian.u16(directory, at + 32))
            let localOffset = LittleEndian.u32(directory, at + 42)
            let next = at + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw corrupt(path, "central directory entry \(n + 1) is cut short") }
            let name = String(decoding: directory[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF {
                throw InputError(
                    path: path, reason: "entry \(name): ZIP64 sizes are not supported", code: "zip-unsupported")
            }
            if flags & 1 != 0 {
                throw InputError(path: path, reason: "entry \(name) is encrypted", code: "zip-unsupported")
            }
            entries.append(
                Entry(
                    name: name, method: method, crc32: crc, compressedSize: Int64(compressed),
                    uncompressedSize: Int64(uncompressed), localHeaderOffset: Int64(localOffset)))
            at = next
        }
        return entries
    }

    /// The entry's content as a stream; throws for an unknown method or a bad local header,
    /// and while reading for corrupt data, a wrong CRC-32 or size, or a bomb.
    public func open(_ entry: Entry) throws(InputError) -> ByteStream {
        let what = "zip entry \(entry.name)"
        guard entry.method == 0 || entry.method == 8 else {
            throw InputError(
                path: path,
                reason: "\(what) uses compression method \(entry.method); only stored (0) and deflate (8) are read",
                code: "zip-unsupported")
        }
        if entry.uncompressedSize > limits.maxDecompressedBytes {
            throw InputError(
                path: path,
                reason:
                    "\(what) declares \(entry.uncompressedSize) bytes, past the cap of \(limits.maxDecompressedBytes)",
                code: "decompression-limit")
        }
        let header = try file.read(at: entry.localHeaderOffset, count: 30)
        guard header.count == 30, LittleEndian.u32(header, 0) == ZipArchive.localSignature else {
            throw ZipArchive.corrupt(path, "\(what): no local header at offset \(entry.localHeaderOffset)")
        }
        let dataOffset =
            entry.localHeaderOffset + 30 + Int64(LittleEndian.u16(header, 26)) + Int64(LittleEndian.u16(header, 28))
        guard dataOffset + entry.compressedSize <= file.size else {
            throw ZipArchive.corrupt(path, "\(what): its data runs past the end of the archive")
        }
        return try ZipEntryStream(file: file, entry: entry, dataOffset: dataOffset, path: path, limits: limits)
    }
}

/// Reads one entry's bytes from its place in the archive, inflating when it is deflated.
final class ZipEntryStream: ByteStream {
    private let file: ArchiveBytes
    private let entry: ZipArchive.Entry
    private let path: String
    private let limits: Limits
    private let what: String
    private let zlib: ZlibHandle?
    private var input: [UInt8] = []
    private var inputUsed = 0
    private var nextOffset: Int64
    private let endOffset: Int64
    private var crc: uLong = 0
    private var produced: Int64 = 0
    private var finished = false
    private var deflateEnded = false

    init(file: ArchiveBytes, entry: ZipArchive.Entry, dataOffset: Int64, path: String, limits: Limits)
        throws(InputError)
    {
        self.file = file
        self.entry = entry
        self.path = path
        self.limits = limits
        what = "zip entry \(entry.name)"
        nextOffset = dataOffset
        endOffset = dataOffset + entry.compressedSize
        if entry.method == 8 {
            guard let z = ZlibHandle(.inflate, framing: .raw) else {
                throw InputError(path: path, reason: "zlib could not start an inflater", code: "zip-corrupt")
            }
            zlib = z
        } else {
            zlib = nil
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n: Int
        if let zlib {
            n = try inflate(zlib, into: out, count: min(buffer.count, Int(UInt32.max)))
        } else {
            n = try copyStored(into: buffer)
        }
        if n > 0 {
            crc = crc32(crc, out.assumingMemoryBound(to: Bytef.self), uInt(n))
            produced += Int64(n)
            if produced > entry.uncompressedSize {
                throw InputError(
                    path: path, reason: "\(what) holds more than the \(entry.uncompressedSize) bytes it declares",
                    code: "zip-corrupt")
            }
            try DecompressionCaps.check(
                compressed: nextOffset - (endOffset - entry.compressedSize), decompressed: produced,
                limits: limits, path: path, what: what)
            return n
        }
        finished = true
        guard produced == entry.uncompressedSize else {
            throw InputError(
                path: path, reason: "\(what) ends after \(produced) of its \(entry.uncompressedSize) bytes",
                code: "zip-truncated")
        }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw InputError(path: path, reason: "\(what) fails its CRC-32 check", code: "zip-corrupt")
        }
        return 0
    }

    /// Compressed bytes not yet handed out, read in chunks of 256 KiB.
    private func refill() throws(InputError) {
        let count = Int(min(Int64(256 << 10), endOffset - nextOffset))
        input = count > 0 ? try file.read(at: nextOffset, count: count) : []
        guard input.count == count else {
            throw InputError(path: path, reason: "\(what) is cut short", code: "zip-truncated")
        }
        nextOffset += Int64(count)
        inputUsed = 0
    }

    private func copyStored(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if inputUsed == input.count { try refill() }
        let n = min(buffer.count, input.count - inputUsed)
        guard n > 0 else { return 0 }
        input.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[inputUsed..<(inputUsed + n)]))
        }
        inputUsed += n
        return n
    }

    private func inflate(_ zlib: ZlibHandle, into out: UnsafeMutableRawPointer, count: Int) throws(InputError) -> Int {
        guard !deflateEnded else { return 0 }
        let z = zlib.stream
        z.pointee.next_out = out.assumingMemoryBound(to: Bytef.self)
        z.pointee.avail_out = UInt32(count)
        while Int(z.pointee.avail_out) == count {
            if inputUsed == input.count {
                guard nextOffset < endOffset else {
                    throw InputError(path: path, reason: "\(what): its deflate data ends early", code: "zip-truncated")
                }
                try refill()
            }
            let status = input.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return Z_BUF_ERROR }
                z.pointee.next_in = (base + inputUsed).assumingMemoryBound(to: Bytef.self)
                z.pointee.avail_in = UInt32(raw.count - inputUsed)
                let before = z.pointee.avail_in
                let status = CZlib.inflate(z, Z_NO_FLUSH)
                inputUsed += Int(before - z.pointee.avail_in)
                return status
            }
            switch status {
            case Z_OK:
                continue
            case Z_BUF_ERROR where inputUsed == input.count:
                continue  // out of input: the next turn reads more
            case Z_STREAM_END:
                deflateEnded = true
                return count - Int(z.pointee.avail_out)
            default:
                throw InputError(
                    path: path, reason: "\(what): corrupt deflate data: \(zlib.message(or: "zlib status \(status)"))",
                    code: "zip-corrupt")
            }
        }
        return count - Int(z.pointee.avail_out)
    }
}

/// An archive's bytes, read at given offsets.
protocol ArchiveBytes: AnyObject {
    var size: Int64 { get }
    /// Up to `count` bytes from `offset`; fewer only at the end.
    func read(at offset: Int64, count: Int) throws(InputError) -> [UInt8]
}

/// An archive already in memory.
final class MemoryArchiveBytes: ArchiveBytes {
    private let bytes: [UInt8]
    var size: Int64 { Int64(bytes.count) }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(at offset: Int64, count: Int) throws(InputError) -> [UInt8] {
        guard count > 0, let start = Int(exactly: offset), start >= 0, start < bytes.count else { return [] }
        return Array(bytes[start..<(start + min(count, bytes.count - start))])
    }
}

/// A file read at given offsets (`pread(2)`), owned and closed with its reader.
final class PositionalFile: ArchiveBytes {
    let path: String
    let size: Int64
    private let descriptor: Int32

    init(path: String) throws(InputError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(path: path, reason: "cannot open: \(FileByteStream.lastErrorText())", code: "cannot-open")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            close(fd)
            throw InputError(path: path, reason: "cannot open: not a readable file", code: "cannot-open")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws(InputError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress.map { $0 + filled }, count - filled, off_t(offset) + off_t(filled))
            }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(
                    path: path, reason: "read failed: \(FileByteStream.lastErrorText())", code: "read-failed")
            }
            filled += n
        }
        return filled == count ? bytes : Array(bytes[..<filled])
    }
}

enum LittleEndian {
    /// Callers check `at + 2 <= bytes.count` (or + 4) before they read.
    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3])
            << 24
    }
}
