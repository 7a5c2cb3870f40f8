import Decompression
import IAPBasics
import Testing

@Suite("Reading gzip inputs")
struct GzipStreamTests {
    @Test("a gzip file reads back as the bytes that were compressed")
    func roundTrip() throws {
        let files = try TemporaryFiles()
        let text = sampleText(lines: 20_000)
        let path = try files.write("orders.csv.gz", try #require(GzipEncoder.compress(text)))
        let input = try InputOpener.open(path: path)
        #expect(input.compression == .gzip)
        #expect(try readAll(input.stream) == text)
    }

    @Test("gzip is recognised by its magic bytes whatever the file is called")
    func magicNotName() throws {
        let files = try TemporaryFiles()
        let text = Array("order_id,user_id\n1,2\n".utf8)
        let path = try files.write("orders.csv", try #require(GzipEncoder.compress(text)))
        let input = try InputOpener.open(path: path)
        #expect(input.compression == .gzip)
        #expect(try readAll(input.stream) == text)
    }

    @Test("a plain file is passed through, even one shorter than the magic")
    func plainFiles() throws {
        let files = try TemporaryFiles()
        for content in [[], [0x1F], Array("a,b\n".utf8)] as [[UInt8]] {
            let input = try InputOpener.open(path: try files.write("plain", content))
            #expect(input.compression == .none)
            #expect(try readAll(input.stream) == content)
        }
    }

    @Test("the members of a multi-member gzip file are read one after another")
    func multiMember() throws {
        let files = try TemporaryFiles()
        let first = sampleText(lines: 3_000)
        let second = Array("and a second member\n".utf8)
        let empty: [UInt8] = []
        let bytes =
            try #require(GzipEncoder.compress(first)) + (try #require(GzipEncoder.compress(empty)))
            + (try #require(GzipEncoder.compress(second)))
        let input = try InputOpener.open(path: try files.write("parts.gz", bytes))
        #expect(try readAll(input.stream, chunk: 1_000) == first + second)
    }

    @Test("ISA-L's fast members (the benchmark worlds' dumps) read back exactly, text, random bytes and nothing")
    func fastMembers() throws {
        let files = try TemporaryFiles()
        var random = SeededRandom(seed: 7)
        let noise = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let text = sampleText(lines: 20_000)
        let bytes =
            try #require(FastGzip.member(text)) + (try #require(FastGzip.member([])))
            + (try #require(FastGzip.member(noise)))
        #expect(bytes.count < text.count / 3 + noise.count + 1_000)
        let input = try InputOpener.open(path: try files.write("fast.gz", bytes))
        #expect(input.compression == .gzip)
        #expect(try readAll(input.stream, chunk: 4_096) == text + noise)
    }

    @Test("a truncated gzip file is an error that says so, after the bytes it could read")
    func truncated() throws {
        let files = try TemporaryFiles()
        let whole = try #require(GzipEncoder.compress(sampleText(lines: 20_000)))
        let path = try files.write("cut.gz", Array(whole[..<(whole.count / 2)]))
        let input = try InputOpener.open(path: path)
        let error = try #require(throws: InputError.self) { _ = try readAll(input.stream) }
        #expect(error.code == "gzip-truncated")
        #expect(error.path == path)
        #expect(error.reason.contains("truncated"))
    }

    @Test("a gzip file cut inside its trailer is truncated too")
    func truncatedTrailer() throws {
        let files = try TemporaryFiles()
        let whole = try #require(GzipEncoder.compress(Array("short".utf8)))
        let input = try InputOpener.open(path: try files.write("cut.gz", Array(whole.dropLast(3))))
        let error = try #require(throws: InputError.self) { _ = try readAll(input.stream) }
        #expect(error.code == "gzip-truncated")
    }

    @Test("corrupt deflate data is reported with zlib's own message")
    func corruptData() throws {
        let files = try TemporaryFiles()
        var bytes = try #require(GzipEncoder.compress(sampleText(lines: 5_000)))
        for i in 20..<60 { bytes[i] ^= 0xA5 }
        let input = try InputOpener.open(path: try files.write("bad.gz", bytes))
        let error = try #require(throws: InputError.self) { _ = try readAll(input.stream) }
        #expect(error.code == "gzip-corrupt")
        #expect(error.reason.hasPrefix("corrupt gzip data in member 1: "))
    }

    @Test("a wrong checksum is corrupt data, not a silent success")
    func badChecksum() throws {
        let files = try TemporaryFiles()
        var bytes = try #require(GzipEncoder.compress(Array("hello, world\n".utf8)))
        bytes[bytes.count - 8] ^= 0xFF
        let input = try InputOpener.open(path: try files.write("crc.gz", bytes))
        let error = try #require(throws: InputError.self) { _ = try readAll(input.stream) }
        #expect(error.code == "gzip-corrupt")
        #expect(error.reason.contains("CRC32 or length check failed"))
        // The trailer's length (ISIZE) is checked too.
        var wrongLength = try #require(GzipEncoder.compress(Array("hello, world\n".utf8)))
        wrongLength[wrongLength.count - 4] ^= 0x01
        let other = try InputOpener.open(path: try files.write("isize.gz", wrongLength))
        let lengthError = try #require(throws: InputError.self) { _ = try readAll(other.stream) }
        #expect(lengthError.code == "gzip-corrupt")
    }

    @Test("bytes after the last member that are not another member are refused")
    func trailingGarbage() throws {
        let files = try TemporaryFiles()
        let bytes = try #require(GzipEncoder.compress(Array("data\n".utf8))) + Array("garbage".utf8)
        let input = try InputOpener.open(path: try files.write("tail.gz", bytes))
        let error = try #require(throws: InputError.self) { _ = try readAll(input.stream) }
        #expect(error.code == "gzip-corrupt")
        #expect(error.reason == "unexpected bytes after gzip member 1")
    }

    @Test("a gzip bomb stops at the size cap instead of filling memory: no more than the cap is handed out")
    func bombBySize() throws {
        let files = try TemporaryFiles()
        let path = try files.write("bomb.gz", try zeros(megabytes: 200))
        var limits = Limits()
        limits.maxDecompressedBytes = 8 << 20
        let input = try InputOpener.open(path: path, limits: limits)
        // What was read before the error, not how long it took: 8 MB of the 200, not the rest.
        let (handedOut, failure) = drainUntilError(input.stream)
        let error = try #require(failure)
        #expect(error.code == "decompression-limit")
        #expect(error.reason.contains("past the cap of 8388608 bytes"))
        #expect(handedOut <= 8 << 20, "\(handedOut) bytes handed out before the error")
    }

    @Test("a gzip bomb is caught by its expansion ratio once past the grace size")
    func bombByRatio() throws {
        let files = try TemporaryFiles()
        let path = try files.write("bomb.gz", try zeros(megabytes: 200))
        var limits = Limits()
        limits.maxCompressionRatio = 100
        limits.ratioGraceBytes = 1 << 20
        let input = try InputOpener.open(path: path, limits: limits)
        let error = try #require(throws: InputError.self) { _ = try drain(input.stream) }
        #expect(error.code == "decompression-limit")
        #expect(error.reason.contains("more than 100:1"))
    }

    @Test("well-compressing text under the grace size is never judged by ratio")
    func smallFilesPassRatio() throws {
        let files = try TemporaryFiles()
        let text = [UInt8](repeating: 0x41, count: 4 << 20)
        var limits = Limits()
        limits.maxCompressionRatio = 10
        let input = try InputOpener.open(
            path: try files.write("a.gz", try #require(GzipEncoder.compress(text))), limits: limits)
        #expect(try readAll(input.stream, chunk: 1 << 20).count == text.count)
    }

    /// About 200 KB of gzip holding `megabytes` of zeros: one 8 MB member repeated, which
    /// is as valid a gzip file as one member and much quicker to make.
    private func zeros(megabytes: Int) throws -> [UInt8] {
        let member = try #require(GzipEncoder.compress([UInt8](repeating: 0, count: 8 << 20), level: 9))
        return Array([[UInt8]](repeating: member, count: megabytes / 8).joined())
    }

    /// Reads to the end or the first error, keeping nothing: the bytes handed out before it, and the error.
    private func drainUntilError(_ stream: ByteStream) -> (Int64, InputError?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            do throws(InputError) {
                let n = try stream.read(into: buffer)
                if n == 0 { return (total, nil) }
                total += Int64(n)
            } catch {
                return (total, error)
            }
        }
    }

    /// Reads to the end, keeping nothing.
    private func drain(_ stream: ByteStream) throws(InputError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = try stream.read(into: buffer)
            if n == 0 { return total }
            total += Int64(n)
        }
    }
}

@Suite("Read buffers change speed, not what is read")
struct ReadBuffersTests {
    static let settings: [ReadBuffers] = [
        .standard, .small,
        ReadBuffers(chunkBytes: 64, gzipInputBytes: 64, prefetchChunks: 2),
        ReadBuffers(chunkBytes: 1, gzipInputBytes: 1, prefetchChunks: 0),  // read as the 64-byte minimum
    ]

    /// What reading `bytes` as `name` gives: the bytes, or the error's code.
    func read(_ bytes: [UInt8], _ buffers: ReadBuffers) -> String {
        do {
            let input = try InputOpener.open(bytes: bytes, name: "in.gz", buffers: buffers)
            let out = try readAll(input.stream, chunk: 777)
            return "\(input.compression) \(out.count) \(out.reduce(0) { ($0 &* 31) &+ Int($1) })"
        } catch {
            return error.code
        }
    }

    @Test(
        "members, empty members, a truncated stream, garbage after a member: the same with every setting",
        arguments: settings)
    func gzipAnyBuffers(_ buffers: ReadBuffers) throws {
        let first = sampleText(lines: 3_000)
        let members =
            try #require(GzipEncoder.compress(first)) + (try #require(GzipEncoder.compress([])))
            + (try #require(GzipEncoder.compress(Array("second\n".utf8))))
        let cases: [[UInt8]] = [
            members, Array(members.dropLast(10)), members + [0x1F, 0x8B, 0x08], members + [0x00], [0x1F], first,
        ]
        for bytes in cases {
            #expect(read(bytes, buffers) == read(bytes, .standard))
        }
        #expect(read(members, buffers).hasPrefix("gzip \(first.count + 7) "))
    }
}
