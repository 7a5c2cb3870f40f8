#if canImport(Glibc)
    import Glibc
#endif

/// Finds bytes many at a time: dump lines are mostly long base64 receipts, and a
/// byte-by-byte loop would dominate reading them. Two bytes at once go eight at a time (SWAR).
enum ByteSearch {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The whitespace a dump's field or line is trimmed of: space, tab, LF, CR.
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Some byte of `word` is zero exactly when this is non-zero (Hacker's Delight 6-1).
    @inline(__always)
    private static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    /// Whether `raw` holds exactly `bytes` (libc's `memcmp`: a generic comparison went byte
    /// by byte through two collections' indices, for every field of every row).
    static func same(_ bytes: [UInt8], _ raw: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == raw.count else { return false }
        return bytes.withUnsafeBytes { kept in
            guard let a = kept.baseAddress, let b = raw.baseAddress else { return true }
            return memcmp(a, b, raw.count) == 0
        }
    }

    /// The index of the first `byte` in `base[from..<to]`, or nil. One byte is libc's
    /// `memchr`, which reads many times eight bytes at a time (a store event's line is 8 KB).
    static func firstIndex(of byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// The index of the first `a` or `b` in `base[from..<to]`, or `to` when there is none.
    static func firstIndex(of a: UInt8, or b: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        let patternA = ones &* UInt64(a)
        let patternB = ones &* UInt64(b)
        let raw = UnsafeRawPointer(base)
        while i + 8 <= to {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if hasZeroByte(word ^ patternA) || hasZeroByte(word ^ patternB) { break }
            i += 8
        }
        while i < to {
            let c = base[i]
            if c == a || c == b { return i }
            i += 1
        }
        return to
    }

    /// True when no byte has its high bit set: then the bytes are valid UTF-8 as they are.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= bytes.count {
            seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            seen |= UInt64(base[i])
            i += 1
        }
        return seen & highs == 0
    }
}
