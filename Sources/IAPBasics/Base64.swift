/// Strict base64 (RFC 4648): the standard alphabet with optional line breaks and padding,
/// or base64url (JWS segments, no padding). A byte outside the alphabet is an error with
/// its offset, never skipped.
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 + /`, `=` padding, CR/LF/space/tab ignored (receipts wrap lines).
        case standard
        /// `A–Z a–z 0–9 - _`, padding optional, no whitespace.
        case url
    }

    private static let invalid: UInt8 = 0xFF
    private static let skip: UInt8 = 0xFE

    /// An alphabet's tables, made once and kept for the life of the process: reading them
    /// takes no reference count, and a receipt's segments are decoded by the million.
    private struct Tables: @unchecked Sendable {
        /// A character's six bits, `invalid` or `skip`; 256 entries.
        let single: UnsafeBufferPointer<UInt8>
        /// Four tables, one per place in a group of four characters, each value already shifted
        /// to its place in the group's 24 bits and byte-swapped so that the group stores as
        /// little-endian bytes in order; a character outside the alphabet sets bit 31. 4 × 256 entries.
        let places: UnsafeBufferPointer<UInt32>

        init(_ single: [UInt8]) {
            let s = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: single.count)
            _ = s.initialize(from: single)
            let placed = Base64.makePlaces(single)
            let p = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: placed.count)
            _ = p.initialize(from: placed)
            self.single = UnsafeBufferPointer(s)
            self.places = UnsafeBufferPointer(p)
        }
    }

    private static let standardTables = Tables(makeTable(plus: 0x2B, slash: 0x2F, whitespace: true))
    private static let urlTables = Tables(makeTable(plus: 0x2D, slash: 0x5F, whitespace: false))

    private static func makePlaces(_ single: [UInt8]) -> [UInt32] {
        var places = [UInt32](repeating: 0x8000_0000, count: 4 * 256)
        for place in 0..<4 {
            for c in 0..<256 where single[c] < 64 {
                let bits = UInt32(single[c]) << UInt32(18 - 6 * place)
                // b0 b1 b2 of the group land in the low three bytes, b0 lowest.
                places[place * 256 + c] = (bits >> 16 & 0xFF) | (bits & 0xFF00) | (bits & 0xFF) << 16
            }
        }
        return places
    }

    private static func makeTable(plus: UInt8, slash: UInt8, whitespace: Bool) -> [UInt8] {
        var t = [UInt8](repeating: invalid, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            t[Int(c)] = UInt8(i)
        }
        t[Int(plus)] = 62
        t[Int(slash)] = 63
        if whitespace {
            for w: UInt8 in [0x0A, 0x0D, 0x20, 0x09] { t[Int(w)] = skip }
        }
        return t
    }

    public static func decode<Bytes: Collection<UInt8>>(
        _ text: Bytes, alphabet: Alphabet = .standard,
        maxBytes: Int = Int.max
    ) throws(DecodeError) -> [UInt8] {
        if let r = text.withContiguousStorageIfAvailable({ buf in
            Result<[UInt8], DecodeError> { () throws(DecodeError) in
                try decode(UnsafeRawBufferPointer(buf), alphabet: alphabet, maxBytes: maxBytes)
            }
        }) {
            return try r.get()
        }
        return try decode(Array(text), alphabet: alphabet, maxBytes: maxBytes)
    }

    /// Bytes in an array, the common case, without the generic entry's indirect calls.
    public static func decode(_ text: [UInt8], alphabet: Alphabet = .standard, maxBytes: Int = Int.max)
        throws(DecodeError) -> [UInt8]
    {
        let r = text.withUnsafeBytes { buf in
            Result<[UInt8], DecodeError> { () throws(DecodeError) in
                try decode(buf, alphabet: alphabet, maxBytes: maxBytes)
            }
        }
        return try r.get()
    }

    /// Text (a JSON string's certificate or receipt), decoded from its UTF-8 where it lies.
    public static func decode(_ text: String, alphabet: Alphabet = .standard, maxBytes: Int = Int.max)
        throws(DecodeError) -> [UInt8]
    {
        var text = text
        let r = text.withUTF8 { utf8 in
            Result<[UInt8], DecodeError> { () throws(DecodeError) in
                try decode(UnsafeRawBufferPointer(utf8), alphabet: alphabet, maxBytes: maxBytes)
            }
        }
        return try r.get()
    }

    public static func decode(_ text: UnsafeRawBufferPointer, alphabet: Alphabet, maxBytes: Int) throws(DecodeError)
        -> [UInt8]
    {
        guard text.count / 4 * 3 <= maxBytes else {
            throw DecodeError("too-large", "base64 text would decode past the cap of \(maxBytes) bytes", at: 0)
        }
        let tables = alphabet == .standard ? standardTables : urlTables
        var failure: DecodeError?
        let out = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { out, written in
            do throws(DecodeError) {
                written = try decode(
                    text, into: out, table: tables.single, places: tables.places,
                    strictPadding: alphabet == .standard)
            } catch {
                failure = error
                written = 0
            }
        }
        if let failure { throw failure }
        // The first check counts whole groups only; a short last group may add two bytes.
        guard out.count <= maxBytes else {
            throw DecodeError("too-large", "base64 text decodes past the cap of \(maxBytes) bytes", at: 0)
        }
        return out
    }

    /// Whole groups of four alphabet bytes take the fast path; whitespace, padding and
    /// errors the careful one. `out` has room for three bytes more than the text decodes
    /// to, which the fast path's eight-byte stores rely on.
    private static func decode(
        _ text: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>,
        table t: UnsafeBufferPointer<UInt8>, places: UnsafeBufferPointer<UInt32>,
        strictPadding: Bool
    ) throws(DecodeError) -> Int {
        let raw = UnsafeMutableRawBufferPointer(out)
        let count = text.count
        var o = 0
        var i = 0
        var acc: UInt32 = 0
        var n = 0
        var padding = 0
        while i < count {
            // Eight characters -> six bytes, one table lookup a character, while nothing special comes.
            while n == 0, padding == 0, i + 8 <= count {
                let w = text.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let g0 =
                    places[Int(truncatingIfNeeded: w & 0xFF)] | places[256 + Int(truncatingIfNeeded: w >> 8 & 0xFF)]
                    | places[512 + Int(truncatingIfNeeded: w >> 16 & 0xFF)]
                    | places[768 + Int(truncatingIfNeeded: w >> 24 & 0xFF)]
                let g1 =
                    places[Int(truncatingIfNeeded: w >> 32 & 0xFF)]
                    | places[256 + Int(truncatingIfNeeded: w >> 40 & 0xFF)]
                    | places[512 + Int(truncatingIfNeeded: w >> 48 & 0xFF)]
                    | places[768 + Int(truncatingIfNeeded: w >> 56)]
                guard (g0 | g1) & 0x8000_0000 == 0 else { break }
                // Eight bytes stored, six of them decoded: `out` has the room (see above).
                raw.storeBytes(of: (UInt64(g0) | UInt64(g1) << 24).littleEndian, toByteOffset: o, as: UInt64.self)
                o += 6
                i += 8
            }
            guard i < count else { break }
            if n == 0, padding == 0, i + 4 <= count {
                let a = t[Int(text[i])]
                let b = t[Int(text[i + 1])]
                let c = t[Int(text[i + 2])]
                let d = t[Int(text[i + 3])]
                if a | b | c | d < 64 {
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                    o += 3
                    i += 4
                    continue
                }
            }
            let c = text[i]
            let v = t[Int(c)]
            if v < 64 {
                guard padding == 0 else { throw DecodeError("bad-base64", "data after '=' padding", at: i) }
                acc = acc << 6 | UInt32(v)
                n += 1
                if n == 4 {
                    out[o] = UInt8(truncatingIfNeeded: acc >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: acc >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: acc)
                    o += 3
                    acc = 0
                    n = 0
                }
            } else if v == skip {
                // whitespace between groups
            } else if c == 0x3D {
                padding += 1
                guard padding <= 2, n >= 2, n + padding <= 4 else {
                    throw DecodeError("bad-base64", "misplaced '=' padding", at: i)
                }
            } else {
                throw DecodeError("bad-base64", "byte 0x\(String(c, radix: 16)) is not base64", at: i)
            }
            i += 1
        }
        if strictPadding, padding > 0, n + padding != 4 {
            throw DecodeError("bad-base64", "incomplete padding", at: count)
        }
        switch n {
        case 0: break
        case 1: throw DecodeError("bad-base64", "base64 text ends with a single stray character", at: count)
        case 2:
            out[o] = UInt8(truncatingIfNeeded: acc >> 4)
            o += 1
        default:
            out[o] = UInt8(truncatingIfNeeded: acc >> 10)
            out[o + 1] = UInt8(truncatingIfNeeded: acc >> 2)
            o += 2
        }
        return o
    }

    public static func encode(_ bytes: [UInt8], alphabet: Alphabet = .standard) -> String {
        let chars: StaticString =
            alphabet == .standard
            ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let whole = bytes.count / 3
        let rest = bytes.count - whole * 3
        let length = whole * 4 + (rest == 0 ? 0 : (alphabet == .standard ? 4 : rest + 1))
        guard length > 0 else { return "" }
        // Written straight into the string's storage: every index below is within `length`.
        return String(unsafeUninitializedCapacity: length) { out in
            bytes.withUnsafeBufferPointer { input in
                let table = chars.utf8Start
                var o = 0
                var i = 0
                while i < whole * 3 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = table[Int(v >> 18 & 63)]
                    out[o + 1] = table[Int(v >> 12 & 63)]
                    out[o + 2] = table[Int(v >> 6 & 63)]
                    out[o + 3] = table[Int(v & 63)]
                    i += 3
                    o += 4
                }
                if rest > 0 {
                    var v = UInt32(input[i]) << 16
                    if rest == 2 { v |= UInt32(input[i + 1]) << 8 }
                    out[o] = table[Int(v >> 18 & 63)]
                    out[o + 1] = table[Int(v >> 12 & 63)]
                    o += 2
                    if rest == 2 {
                        out[o] = table[Int(v >> 6 & 63)]
                        o += 1
                    }
                    while alphabet == .standard, o < length {
                        out[o] = 0x3D
                        o += 1
                    }
                }
            }
            return length
        }
    }
}
