// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).

/// One step from the root of a JSON text to a value.
enum JSONPathStep: Sendable, Equatable {
    case key(String)
    case index(Int)
}

/// Finds where a value sits in JSON text the parser has already accepted. It runs only when
/// an error needs a byte offset, so the parsed tree need not carry positions.
enum JSONLocator {
    /// The offset of the first byte of the value at `path`; nil when the path is not there
    /// (or a key needs escapes to be spelt, which the comparison of raw bytes does not undo).
    /// A repeated key resolves to its last occurrence, as `JSONObject` does.
    static func start(of path: [JSONPathStep], in b: [UInt8]) -> Int? {
        var pos = skipSpace(b, 0)
        for step in path {
            switch step {
            case .key(let key):
                guard let found = member(key, ofObjectAt: pos, in: b) else { return nil }
                pos = found
            case .index(let n):
                guard let found = element(n, ofArrayAt: pos, in: b) else { return nil }
                pos = found
            }
        }
        return pos
    }

    /// The bytes the value at `path` spans, from its first byte to just past its last; nil
    /// when `start(of:in:)` cannot find it.
    static func range(of path: [JSONPathStep], in b: [UInt8]) -> Range<Int>? {
        guard let start = start(of: path, in: b), let end = endOfValue(b, start) else { return nil }
        return start..<end
    }

    private static func member(_ key: String, ofObjectAt open: Int, in b: [UInt8]) -> Int? {
        guard open < b.count, b[open] == 0x7B else { return nil }
        let want = Array(key.utf8)
        var found: Int?
        var pos = skipSpace(b, open + 1)
        while pos < b.count, b[pos] == 0x22 {
            guard let keyEnd = endOfString(b, pos) else { return nil }
            let matches = keyEnd - pos - 2 == want.count && b[(pos + 1)..<(keyEnd - 1)].elementsEqual(want)
            pos = skipSpace(b, keyEnd)
            guard pos < b.count, b[pos] == 0x3A else { return nil }
            pos = skipSpace(b, pos + 1)
            if matches { found = pos }
            guard let valueEnd = endOfValue(b, pos) else { return nil }
            pos = skipSpace(b, valueEnd)
            guard pos < b.count, b[pos] == 0x2C else { break }
            pos = skipSpace(b, pos + 1)
        }
        return found
    }

    private static func element(_ n: Int, ofArrayAt open: Int, in b: [UInt8]) -> Int? {
        guard open < b.count, b[open] == 0x5B, n >= 0 else { return nil }
        var pos = skipSpace(b, open + 1)
        var index = 0
        while index < n {
            guard let valueEnd = endOfValue(b, pos) else { return nil }
            pos = skipSpace(b, valueEnd)
            guard pos < b.count, b[pos] == 0x2C else { return nil }
            pos = skipSpace(b, pos + 1)
            index += 1
        }
        guard pos < b.count, b[pos] != 0x5D else { return nil }
        return pos
    }

    /// Where, in `b`, the JSON string whose opening quote is at `quote` produced its decoded
    /// (unescaped UTF-8) byte `k`; the closing quote when `k` is at or past its end.
    static func rawOffset(ofDecodedByte k: Int, inStringAt quote: Int, in b: [UInt8]) -> Int {
        var i = quote + 1
        var produced = 0
        while i < b.count, b[i] != 0x22 {
            var width = 1
            var bytesOut = 1
            if b[i] == 0x5C {
                width = 2
                if i + 5 < b.count, b[i + 1] == 0x75, let scalar = hex4(b, i + 2) {
                    width = 6
                    switch scalar {
                    case 0..<0x80: bytesOut = 1
                    case 0x80..<0x800: bytesOut = 2
                    case 0xD800..<0xDC00 where i + 11 < b.count && b[i + 6] == 0x5C && b[i + 7] == 0x75:
                        width = 12
                        bytesOut = 4
                    default: bytesOut = 3
                    }
                }
            }
            if produced + bytesOut > k { return i }
            produced += bytesOut
            i += width
        }
        return min(i, b.count)
    }

    private static func hex4(_ b: [UInt8], _ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for c in b[at..<(at + 4)] {
            switch c {
            case 0x30...0x39: v = v << 4 | UInt32(c - 0x30)
            case 0x41...0x46: v = v << 4 | UInt32(c - 0x41 + 10)
            case 0x61...0x66: v = v << 4 | UInt32(c - 0x61 + 10)
            default: return nil
            }
        }
        return v
    }

    private static func skipSpace(_ b: [UInt8], _ from: Int) -> Int {
        var i = from
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    /// The offset just past the closing quote of the string opening at `quote`.
    private static func endOfString(_ b: [UInt8], _ quote: Int) -> Int? {
        guard quote < b.count, b[quote] == 0x22 else { return nil }
        var i = quote + 1
        while i < b.count {
            switch b[i] {
            case 0x5C: i += 2
            case 0x22: return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The offset just past the value starting at `start` (no recursion: a depth count).
    private static func endOfValue(_ b: [UInt8], _ start: Int) -> Int? {
        guard start < b.count else { return nil }
        switch b[start] {
        case 0x22:
            return endOfString(b, start)
        case 0x7B, 0x5B:
            var depth = 0
            var i = start
            while i < b.count {
                switch b[i] {
                case 0x22:
                    guard let end = endOfString(b, i) else { return nil }
                    i = end
                    continue
                case 0x7B, 0x5B:
                    depth += 1
                case 0x7D, 0x5D:
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < b.count {
                switch b[i] {
                case 0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D: return i
                default: i += 1
                }
            }
            return i
        }
    }
}
