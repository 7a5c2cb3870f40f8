import IAPBasics

/// A strict RFC 8259 parser over bytes. Errors carry the byte offset; nesting, container
/// sizes and input length are capped by `Limits`. Invalid UTF-8 and lone surrogates are
/// errors, never replaced silently.
public struct JSONParser {
    public static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(DecodeError) -> JSONValue {
        let result: Result<JSONValue, DecodeError> = bytes.withUnsafeBytes { buf in
            do throws(DecodeError) { return .success(try parse(buf, limits: limits)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, limits: Limits = .standard) throws(DecodeError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    public static func parse(_ buffer: UnsafeRawBufferPointer, limits: Limits = .standard) throws(DecodeError)
        -> JSONValue
    {
        var p = try JSONParser(whole: buffer, limits: limits)
        let value = try p.parseValue(depth: 0)
        try p.finish()
        return value
    }

    let buffer: UnsafeRawBufferPointer
    let limits: Limits
    var pos = 0

    init(buffer: UnsafeRawBufferPointer, limits: Limits) {
        self.buffer = buffer
        self.limits = limits
    }

    /// A parser at the first value of a whole text: its length capped, white space skipped.
    init(whole buffer: UnsafeRawBufferPointer, limits: Limits) throws(DecodeError) {
        guard buffer.count <= limits.maxPayloadBytes else {
            throw DecodeError(
                "too-large", "JSON text of \(buffer.count) bytes exceeds the cap of \(limits.maxPayloadBytes)", at: 0)
        }
        self.init(buffer: buffer, limits: limits)
        skipSpace()
    }

    /// After the top-level value: nothing but white space may follow.
    mutating func finish() throws(DecodeError) {
        skipSpace()
        guard pos == buffer.count else {
            throw DecodeError("trailing-data", "unexpected bytes after the JSON value", at: pos)
        }
    }

    @inline(__always)
    mutating func skipSpace() {
        while pos < buffer.count {
            switch buffer[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    func fail(_ code: String, _ reason: String, at offset: Int? = nil) -> DecodeError {
        DecodeError(code, reason, at: offset ?? pos)
    }

    /// What the value at `pos` is, by its first byte.
    @inline(__always)
    func kindHere() throws(DecodeError) -> JSONKind {
        guard pos < buffer.count else { throw fail("truncated", "JSON text ends where a value was expected") }
        switch buffer[pos] {
        case 0x7B: return .object
        case 0x5B: return .array
        case 0x22: return .string
        case 0x74, 0x66: return .bool
        case 0x6E: return .null
        case 0x2D, 0x30...0x39: return .number
        default:
            throw fail(
                "bad-json", "unexpected byte 0x\(String(buffer[pos], radix: 16)) where a JSON value was expected")
        }
    }

    mutating func parseValue(depth: Int) throws(DecodeError) -> JSONValue {
        switch try kindHere() {
        case .object: return .object(try parseObject(depth: depth + 1))
        case .array: return .array(try parseArray(depth: depth + 1))
        case .string: return .string(try parseString())
        case .number: return .number(try parseNumber())
        case .bool, .null: return try parseLiteral()
        }
    }

    /// `true`, `false` or `null`, by the first byte at `pos`.
    mutating func parseLiteral() throws(DecodeError) -> JSONValue {
        switch buffer[pos] {
        case 0x74:
            try literal("true")
            return .bool(true)
        case 0x66:
            try literal("false")
            return .bool(false)
        default:
            try literal("null")
            return .null
        }
    }

    mutating func literal(_ word: StaticString) throws(DecodeError) {
        let n = word.utf8CodeUnitCount
        guard buffer.count - pos >= n else { throw fail("truncated", "JSON text ends inside \(word)") }
        let w = UnsafeRawBufferPointer(start: word.utf8Start, count: n)
        for k in 0..<n where buffer[pos + k] != w[k] {
            throw fail("bad-json", "misspelt literal, expected \(word)", at: pos + k)
        }
        pos += n
    }

    mutating func parseObject(depth: Int) throws(DecodeError) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = []
        guard try open(depth: depth, close: 0x7D) else { return JSONObject(members) }
        repeat {
            try toMemberName()
            let key = try parseString()
            try toMemberValue()
            let value = try parseValue(depth: depth)
            try countMember(after: members.count)
            members.append((key, value))
        } while try toNext(close: 0x7D)
        return JSONObject(members)
    }

    mutating func parseArray(depth: Int) throws(DecodeError) -> [JSONValue] {
        var items: [JSONValue] = []
        guard try open(depth: depth, close: 0x5D) else { return items }
        repeat {
            skipSpace()
            let value = try parseValue(depth: depth)
            try countElement(after: items.count)
            items.append(value)
        } while try toNext(close: 0x5D)
        return items
    }

    // The steps of an object and an array, shared by building (`parseValue`) and checking
    // (`skipValue`) so that both refuse the same text with the same error at the same place.

    /// At `{` or `[`: false when the container is empty (then past its `close`).
    @inline(__always)
    mutating func open(depth: Int, close: UInt8) throws(DecodeError) -> Bool {
        guard depth <= limits.maxDepth else { throw fail("too-deep", "JSON nesting deeper than \(limits.maxDepth)") }
        pos += 1
        skipSpace()
        if pos < buffer.count, buffer[pos] == close {
            pos += 1
            return false
        }
        return true
    }

    /// After a member's or an element's value: true at a `,` (another follows), false past
    /// the container's `close`.
    @inline(__always)
    mutating func toNext(close: UInt8) throws(DecodeError) -> Bool {
        skipSpace()
        let inside = close == 0x7D ? "an object" : "an array"
        guard pos < buffer.count else { throw fail("truncated", "JSON text ends inside \(inside)") }
        if buffer[pos] == 0x2C {
            pos += 1
            return true
        }
        if buffer[pos] == close {
            pos += 1
            return false
        }
        throw fail("bad-json", "expected ',' or '\(Character(Unicode.Scalar(close)))' in \(inside)")
    }

    /// To the opening quote of the next member's name.
    @inline(__always)
    mutating func toMemberName() throws(DecodeError) {
        skipSpace()
        guard pos < buffer.count else { throw fail("truncated", "JSON text ends inside an object") }
        guard buffer[pos] == 0x22 else { throw fail("bad-json", "expected a quoted member name") }
    }

    /// From the end of a member's name past its `:` to its value.
    @inline(__always)
    mutating func toMemberValue() throws(DecodeError) {
        skipSpace()
        guard pos < buffer.count else { throw fail("truncated", "JSON text ends after a member name") }
        guard buffer[pos] == 0x3A else { throw fail("bad-json", "expected ':' after a member name") }
        pos += 1
        skipSpace()
    }

    /// Before keeping a member: `count` are kept already.
    @inline(__always)
    func countMember(after count: Int) throws(DecodeError) {
        guard count < limits.maxElements else {
            throw fail("too-many", "JSON object with more than \(limits.maxElements) members")
        }
    }

    @inline(__always)
    func countElement(after count: Int) throws(DecodeError) {
        guard count < limits.maxElements else {
            throw fail("too-many", "JSON array with more than \(limits.maxElements) elements")
        }
    }

    mutating func parseNumber() throws(DecodeError) -> String {
        let span = try skipNumber()
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[span]), as: UTF8.self)
    }

    /// Checks the number at `pos` and moves past it; its bytes.
    mutating func skipNumber() throws(DecodeError) -> Range<Int> {
        let start = pos
        if buffer[pos] == 0x2D { pos += 1 }
        guard pos < buffer.count, buffer[pos] >= 0x30, buffer[pos] <= 0x39 else {
            throw fail("bad-json", "a number needs digits")
        }
        if buffer[pos] == 0x30 {
            pos += 1
        } else {
            _ = digitsRun()
        }
        if pos < buffer.count, buffer[pos] == 0x2E {
            pos += 1
            guard digitsRun() > 0 else { throw fail("bad-json", "a decimal point needs digits after it") }
        }
        if pos < buffer.count, buffer[pos] == 0x65 || buffer[pos] == 0x45 {
            pos += 1
            if pos < buffer.count, buffer[pos] == 0x2B || buffer[pos] == 0x2D { pos += 1 }
            guard digitsRun() > 0 else { throw fail("bad-json", "an exponent needs digits") }
        }
        guard pos - start <= 400 else { throw fail("too-large", "number longer than 400 characters", at: start) }
        return start..<pos
    }

    /// Past the digits at `pos`; how many there were.
    @inline(__always)
    mutating func digitsRun() -> Int {
        let start = pos
        while pos < buffer.count, buffer[pos] >= 0x30, buffer[pos] <= 0x39 { pos += 1 }
        return pos - start
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(DecodeError) -> String {
        let open = pos
        let start = pos + 1
        let (p, ascii) = plainRun(from: start)
        guard p < buffer.count else { throw fail("truncated", "JSON text ends inside a string", at: open) }
        if buffer[p] == 0x22 {
            let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<p])
            pos = p + 1
            if ascii { return String(decoding: slice, as: UTF8.self) }
            guard let s = String(validating: slice, as: UTF8.self) else {
                throw fail("invalid-utf8", "string is not valid UTF-8", at: start + invalidUTF8Offset(slice))
            }
            return s
        }
        guard buffer[p] == 0x5C else {
            throw fail("bad-json", "control character 0x\(String(buffer[p], radix: 16)) inside a string", at: p)
        }
        // Slow path with escapes.
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: buffer[start..<p]))
        pos = p
        while true {
            guard pos < buffer.count else { throw fail("truncated", "JSON text ends inside a string", at: open) }
            let c = buffer[pos]
            if c == 0x22 {
                pos += 1
                break
            }
            if c < 0x20 { throw fail("bad-json", "control character 0x\(String(c, radix: 16)) inside a string") }
            if c != 0x5C {
                out.append(c)
                pos += 1
                continue
            }
            pos += 1
            guard pos < buffer.count else { throw fail("truncated", "JSON text ends inside an escape", at: open) }
            let e = buffer[pos]
            pos += 1
            switch e {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard buffer.count - pos >= 6, buffer[pos] == 0x5C, buffer[pos + 1] == 0x75 else {
                        throw fail(
                            "invalid-utf8", "unpaired surrogate \\u\(String(scalar, radix: 16)) in a string",
                            at: pos - 6)
                    }
                    pos += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fail("invalid-utf8", "unpaired surrogate in a string", at: pos - 6)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail(
                        "invalid-utf8", "unpaired surrogate \\u\(String(scalar, radix: 16)) in a string", at: pos - 6)
                }
                guard let u = Unicode.Scalar(scalar) else {
                    throw fail("invalid-utf8", "invalid code point", at: pos - 6)
                }
                out.append(contentsOf: UTF8.encode(u).map { Array($0) } ?? [])
            default:
                throw fail("bad-json", "unknown escape \\\(Character(Unicode.Scalar(e)))", at: pos - 2)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw fail("invalid-utf8", "string is not valid UTF-8", at: open)
        }
        return s
    }

    /// From `start`, inside a string: the offset of the first quote, backslash or control
    /// byte (or of the end), and whether every byte before it is ASCII.
    @inline(__always)
    func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        var p = start
        var ascii = true
        // Sixteen bytes at a time while none is a quote, a backslash, a control or non-ASCII
        // byte (receipts and notifications put kilobytes of base64 in single strings). The
        // constants are splatted and the mask read as words: so the compiler keeps to vector
        // instructions (three times the eight-byte words' speed here).
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        let space = SIMD16<UInt8>(repeating: 0x20)
        // Below 0x20 or from 0x80 is above 0x5F once 0x20 is taken off (wrapping).
        let outside = SIMD16<UInt8>(repeating: 0x5F)
        while p + 16 <= buffer.count {
            let x = buffer.loadUnaligned(fromByteOffset: p, as: SIMD16<UInt8>.self)
            let special = (x .== quote) .| (x .== backslash) .| ((x &- space) .> outside)
            let words = unsafeBitCast(special, to: SIMD2<UInt64>.self)
            if words[0] | words[1] != 0 {
                // Straight to the first byte looked at (a lane is all ones, little-endian):
                // a member's name or a short value ends inside its first sixteen bytes, and
                // the bytes before its quote would otherwise be looked at again one by one.
                p += words[0] != 0 ? words[0].trailingZeroBitCount / 8 : 8 + words[1].trailingZeroBitCount / 8
                break
            }
            p += 16
        }
        while p < buffer.count {
            let c = buffer[p]
            if c == 0x22 || c == 0x5C || c < 0x20 { break }
            if c >= 0x80 { ascii = false }
            p += 1
        }
        return (p, ascii)
    }

    mutating func hex4() throws(DecodeError) -> UInt32 {
        guard buffer.count - pos >= 4 else { throw fail("truncated", "JSON text ends inside a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[pos]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("bad-json", "\\u escape needs four hex digits")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }
}

/// The offset of the first byte that breaks UTF-8 in `bytes` (or its count when valid).
public func invalidUTF8Offset(_ bytes: UnsafeRawBufferPointer) -> Int {
    var i = 0
    let n = bytes.count
    while i < n {
        let c = bytes[i]
        if c < 0x80 {
            i += 1
            continue
        }
        let len: Int
        var minScalar: UInt32
        var scalar: UInt32
        switch c {
        case 0xC2...0xDF:
            len = 2
            scalar = UInt32(c & 0x1F)
            minScalar = 0x80
        case 0xE0...0xEF:
            len = 3
            scalar = UInt32(c & 0x0F)
            minScalar = 0x800
        case 0xF0...0xF4:
            len = 4
            scalar = UInt32(c & 0x07)
            minScalar = 0x10000
        default: return i
        }
        guard i + len <= n else { return i }
        for k in 1..<len {
            let cc = bytes[i + k]
            guard cc & 0xC0 == 0x80 else { return i }
            scalar = scalar << 6 | UInt32(cc & 0x3F)
        }
        if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
        minScalar = 0
        i += len
    }
    return n
}
