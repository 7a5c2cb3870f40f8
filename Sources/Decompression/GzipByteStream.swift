import CISAL
import IAPBasics

/// Inflates a gzip stream as it is read, member after member.
///
/// RFC 1952 §2.2: a gzip file is a series of members, each
///   1f 8b | CM=8 | FLG | MTIME(4) | XFL | OS | [FEXTRA] [FNAME] [FCOMMENT] [FHCRC]
///   | deflate data | CRC32(4) | ISIZE(4)
/// ISA-L's igzip (`ISAL_GZIP`) reads the header and checks CRC32 and ISIZE, about 2.5 times
/// faster than zlib here (a night's receipts dump is gigabytes of base64); it stops exactly
/// at a member's end, so we restart it at each following member, and refuse anything after
/// the last member that is not one.
///
/// A bomb is stopped by size (`Limits.maxDecompressedBytes`) and, once past
/// `Limits.ratioGraceBytes`, by ratio (`Limits.maxCompressionRatio`); memory stays at the
/// caller's buffer plus this stream's input buffer and state however large the output would grow.
public final class GzipByteStream: ByteStream {
    private let source: ByteStream
    private let path: String
    private let limits: Limits
    /// igzip's state (some 90 KB: its history window lives inside).
    private let state: UnsafeMutablePointer<inflate_state>
    private let input: UnsafeMutableRawBufferPointer
    private var sourceEnded = false
    private var betweenMembers = false
    private var finished = false
    private var member = 1
    /// Where members start, when the caller wants to read the file again from one of them.
    private let checkpoints: GzipCheckpoints?
    /// Compressed bytes consumed and decompressed bytes produced, over all members.
    public private(set) var compressedBytes: Int64 = 0
    public private(set) var decompressedBytes: Int64 = 0

    public static let inputChunkBytes = ReadBuffers.standard.gzipInputBytes

    /// `inputChunkBytes`: compressed bytes taken from `source` at a time (at least 64).
    /// `checkpoints` learns where each member after the first starts.
    public init(
        source: ByteStream, path: String, limits: Limits,
        inputChunkBytes: Int = GzipByteStream.inputChunkBytes, checkpoints: GzipCheckpoints? = nil
    ) throws(InputError) {
        self.source = source
        self.path = path
        self.limits = limits
        self.checkpoints = checkpoints
        state = .allocate(capacity: 1)
        isal_inflate_init(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        input = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(inputChunkBytes, ReadBuffers.minimumBytes), alignment: 16)
    }

    deinit {
        state.deallocate()
        input.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let capacity = min(buffer.count, Int(UInt32.max))
        let s = state
        s.pointee.next_out = out.assumingMemoryBound(to: UInt8.self)
        s.pointee.avail_out = UInt32(capacity)
        while Int(s.pointee.avail_out) == capacity {
            if betweenMembers {
                guard try startNextMember() else {
                    finished = true
                    return 0
                }
                // Nothing came out of this call yet (the loop ends at the first byte out).
                checkpoints?.memberStarts(
                    compressed: compressedBytes,
                    decompressed: decompressedBytes + Int64(capacity - Int(s.pointee.avail_out)))
            }
            if s.pointee.avail_in == 0, !sourceEnded { try refill(keeping: 0) }
            let availableBefore = Int64(s.pointee.avail_in)
            let status = isal_inflate(s)
            // igzip may hand back bytes it had buffered (avail_in grows): signed arithmetic.
            let consumed = availableBefore - Int64(s.pointee.avail_in)
            compressedBytes += consumed
            guard status >= 0 else { throw failure(status) }
            if s.pointee.block_state == ISAL_BLOCK_FINISH {
                betweenMembers = true
            } else if s.pointee.avail_in == 0, sourceEnded, Int(s.pointee.avail_out) == capacity {
                throw InputError(
                    path: path, reason: "gzip stream is truncated (member \(member) ends early)",
                    code: "gzip-truncated")
            } else if consumed <= 0, s.pointee.avail_in > 0, Int(s.pointee.avail_out) == capacity {
                throw InputError(
                    path: path, reason: "the inflater made no progress in member \(member)", code: "gzip-corrupt")
            }
        }
        let produced = capacity - Int(s.pointee.avail_out)
        decompressedBytes += Int64(produced)
        try checkLimits()
        return produced
    }

    private func failure(_ status: Int32) -> InputError {
        let why: String
        switch status {
        case ISAL_INVALID_WRAPPER: why = "not a gzip member header"
        case ISAL_UNSUPPORTED_METHOD: why = "compression method is not deflate"
        case ISAL_INCORRECT_CHECKSUM: why = "CRC32 or length check failed"
        case ISAL_INVALID_BLOCK: why = "invalid deflate block"
        case ISAL_INVALID_SYMBOL: why = "invalid deflate symbol"
        case ISAL_INVALID_LOOKBACK: why = "invalid back-reference distance"
        default: why = "inflate status \(status)"
        }
        return InputError(path: path, reason: "corrupt gzip data in member \(member): \(why)", code: "gzip-corrupt")
    }

    /// After a member's end: true when another member follows, false at the clean end.
    private func startNextMember() throws(InputError) -> Bool {
        let s = state
        if s.pointee.avail_in < 2, !sourceEnded { try refill(keeping: Int(s.pointee.avail_in)) }
        if s.pointee.avail_in == 0 { return false }
        guard s.pointee.avail_in >= 2, let next = s.pointee.next_in, next[0] == 0x1F, next[1] == 0x8B else {
            throw InputError(path: path, reason: "unexpected bytes after gzip member \(member)", code: "gzip-corrupt")
        }
        // A reset keeps the input and the gzip flag; only the decoding state starts over.
        isal_inflate_reset(s)
        s.pointee.crc_flag = UInt32(ISAL_GZIP)
        betweenMembers = false
        member += 1
        return true
    }

    /// Moves the `keeping` unread bytes to the front and reads more behind them.
    private func refill(keeping: Int) throws(InputError) {
        let s = state
        guard let base = input.baseAddress else { return }
        if keeping > 0, let unread = s.pointee.next_in {
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
        s.pointee.next_in = base.assumingMemoryBound(to: UInt8.self)
        s.pointee.avail_in = UInt32(filled)
    }

    private func checkLimits() throws(InputError) {
        try DecompressionCaps.check(
            compressed: compressedBytes, decompressed: decompressedBytes,
            limits: limits, path: path, what: "gzip stream")
    }
}

/// The caps every decompressor applies (`Limits.maxDecompressedBytes`, and past
/// `Limits.ratioGraceBytes` the ratio `Limits.maxCompressionRatio`): a bomb stops early.
enum DecompressionCaps {
    /// `what` names the stream in the reason: "gzip stream", "zip entry data.csv".
    static func check(compressed: Int64, decompressed: Int64, limits: Limits, path: String, what: String)
        throws(InputError)
    {
        if decompressed > limits.maxDecompressedBytes {
            throw InputError(
                path: path, reason: "\(what) expands past the cap of \(limits.maxDecompressedBytes) bytes",
                code: "decompression-limit")
        }
        guard decompressed > limits.ratioGraceBytes else { return }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: limits.maxCompressionRatio)
        if !overflow, decompressed > allowed {
            throw InputError(
                path: path,
                reason: "\(what) expands more than \(limits.maxCompressionRatio):1 "
                    + "(\(decompressed) bytes from \(compressed)): a decompression bomb",
                code: "decompression-limit")
        }
    }
}
