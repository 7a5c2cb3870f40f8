import CZlib
import IAPBasics

/// Inflates a gzip stream as it is read, member after member.
///
/// RFC 1952 §2.2: a gzip file is a series of members, each
///   1f 8b | CM=8 | FLG | MTIME(4) | XFL | OS | [FEXTRA] [FNAME] [FCOMMENT] [FHCRC]
///   | deflate data | CRC32(4) | ISIZE(4)
/// zlib (`16 + MAX_WBITS`) reads the header and checks CRC32 and ISIZE; we restart it at
/// each following member, and refuse anything after the last member that is not one.
///
/// A bomb is stopped by size (`Limits.maxDecompressedBytes`) and, once past
/// `Limits.ratioGraceBytes`, by ratio (`Limits.maxCompressionRatio`); memory stays at the
/// caller's buffer plus this stream's input buffer however large the output would grow.
public final class GzipByteStream: ByteStream {
    private let source: ByteStream
    private let path: String
    private let limits: Limits
    private let zlib: ZlibHandle
    private let input: UnsafeMutableRawBufferPointer
    private var sourceEnded = false
    private var betweenMembers = false
    private var finished = false
    private var member = 1
    /// Compressed bytes consumed and decompressed bytes produced, over all members.
    public private(set) var compressedBytes: Int64 = 0
    public private(set) var decompressedBytes: Int64 = 0

    public static let inputChunkBytes = 256 << 10

    public init(source: ByteStream, path: String, limits: Limits) throws(InputError) {
        guard let zlib = ZlibHandle(.inflate) else {
            throw InputError(path: path, reason: "zlib could not start an inflater", code: "gzip-corrupt")
        }
        self.source = source
        self.path = path
        self.limits = limits
        self.zlib = zlib
        self.input = UnsafeMutableRawBufferPointer.allocate(byteCount: GzipByteStream.inputChunkBytes, alignment: 16)
    }

    deinit {
        input.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let capacity = min(buffer.count, Int(UInt32.max))
        let z = zlib.stream
        z.pointee.next_out = out.assumingMemoryBound(to: Bytef.self)
        z.pointee.avail_out = UInt32(capacity)
        while Int(z.pointee.avail_out) == capacity {
            if betweenMembers {
                guard try startNextMember() else {
                    finished = true
                    return 0
                }
            }
            if z.pointee.avail_in == 0, !sourceEnded { try refill(keeping: 0) }
            let availableBefore = z.pointee.avail_in
            let status = inflate(z, Z_NO_FLUSH)
            compressedBytes += Int64(availableBefore - z.pointee.avail_in)
            switch status {
            case Z_OK:
                break
            case Z_STREAM_END:
                betweenMembers = true
            case Z_BUF_ERROR where z.pointee.avail_in == 0 && sourceEnded:
                throw InputError(path: path, reason: "gzip stream is truncated (member \(member) ends early)",
                                 code: "gzip-truncated")
            case Z_BUF_ERROR where z.pointee.avail_in == 0:
                break  // out of input: the next turn refills
            case Z_BUF_ERROR:
                throw InputError(path: path, reason: "zlib made no progress in member \(member)", code: "gzip-corrupt")
            case Z_MEM_ERROR:
                throw InputError(path: path, reason: "zlib ran out of memory", code: "gzip-corrupt")
            default:
                throw InputError(path: path,
                                 reason: "corrupt gzip data in member \(member): \(zlib.message(or: "zlib status \(status)"))",
                                 code: "gzip-corrupt")
            }
        }
        let produced = capacity - Int(z.pointee.avail_out)
        decompressedBytes += Int64(produced)
        try checkLimits()
        return produced
    }

    /// After a member's end: true when another member follows, false at the clean end.
    private func startNextMember() throws(InputError) -> Bool {
        let z = zlib.stream
        if z.pointee.avail_in < 2, !sourceEnded { try refill(keeping: Int(z.pointee.avail_in)) }
        if z.pointee.avail_in == 0 { return false }
        guard z.pointee.avail_in >= 2, let next = z.pointee.next_in, next[0] == 0x1F, next[1] == 0x8B else {
            throw InputError(path: path, reason: "unexpected bytes after gzip member \(member)", code: "gzip-corrupt")
        }
        guard inflateReset(z) == Z_OK else {
            throw InputError(path: path, reason: zlib.message(or: "zlib could not restart"), code: "gzip-corrupt")
        }
        betweenMembers = false
        member += 1
        return true
    }

    /// Moves the `keeping` unread bytes to the front and reads more behind them.
    private func refill(keeping: Int) throws(InputError) {
        let z = zlib.stream
        guard let base = input.baseAddress else { return }
        if keeping > 0, let unread = z.pointee.next_in {
            base.copyMemory(from: unread, byteCount: keeping)
        }
        var filled = keeping
        // At least one new byte, and two in all: enough to see a next member's magic.
        while filled < 2 || filled == keeping {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[filled...]))
            if n == 0 {
                sourceEnded = true
                break
            }
            filled += n
        }
        z.pointee.next_in = base.assumingMemoryBound(to: Bytef.self)
        z.pointee.avail_in = UInt32(filled)
    }

    private func checkLimits() throws(InputError) {
        try DecompressionCaps.check(compressed: compressedBytes, decompressed: decompressedBytes,
                                    limits: limits, path: path, what: "gzip stream")
    }
}

/// The caps every decompressor applies (`Limits.maxDecompressedBytes`, and past
/// `Limits.ratioGraceBytes` the ratio `Limits.maxCompressionRatio`): a bomb stops early.
enum DecompressionCaps {
    /// `what` names the stream in the reason: "gzip stream", "zip entry data.csv".
    static func check(compressed: Int64, decompressed: Int64, limits: Limits, path: String, what: String) throws(InputError) {
        if decompressed > limits.maxDecompressedBytes {
            throw InputError(path: path, reason: "\(what) expands past the cap of \(limits.maxDecompressedBytes) bytes",
                             code: "decompression-limit")
        }
        guard decompressed > limits.ratioGraceBytes else { return }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: limits.maxCompressionRatio)
        if !overflow, decompressed > allowed {
            throw InputError(path: path,
                             reason: "\(what) expands more than \(limits.maxCompressionRatio):1 "
                                 + "(\(decompressed) bytes from \(compressed)): a decompression bomb",
                             code: "decompression-limit")
        }
    }
}
