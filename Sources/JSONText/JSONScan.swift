import IAPBasics

/// Where a value stands in a JSON text, and what kind it is: the value itself is not made.
public struct JSONSpan: Sendable, Equatable {
    /// The value's first byte (a string's opening quote).
    public var start: Int
    /// Just past its last byte (a string's closing quote).
    public var end: Int
    public var kind: JSONKind
    /// A string without escapes: its value is the bytes between its quotes, as they stand.
    public var isPlain = false

    /// A place named by hand (a test's); a scan finds the real ones.
    public init(start: Int, end: Int, kind: JSONKind, isPlain: Bool = false) {
        (self.start, self.end, self.kind, self.isPlain) = (start, end, kind, isPlain)
    }
}

/// One member of a scanned object: where its name (a string) and its value stand.
public struct JSONMember: Sendable {
    public var key: JSONSpan
    public var value: JSONSpan
}

// Scanning checks a text exactly as `parse` does — every byte, the same errors at the same
// offsets, the caps included — but makes no String, Array or JSONValue: a reader that wants
// a few members of an object (a JWS payload) makes only those, from their spans.
extension JSONParser {
    /// Checks `text` as `parse` would and, when it holds an object, appends that object's
    /// members to `members` in document order (a repeated name appears each time). Returns
    /// what the top-level value is.
    public static func scan(_ text: [UInt8], limits: Limits = .standard, members: inout [JSONMember])
        throws(DecodeError) -> JSONKind
    {
        let result: Result<JSONKind, DecodeError> = text.withUnsafeBytes { buffer in
            do throws(DecodeError) {
                var p = try JSONParser(whole: buffer, limits: limits)
                let kind: JSONKind
                if try p.kindHere() == .object {
                    try p.walkObject(depth: 1, recording: &members)
                    kind = .object
                } else {
                    kind = try p.skipValue(depth: 0).kind
                }
                try p.finish()
                return .success(kind)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The members of the object at `offset` of a text `scan` accepted with `limits`,
    /// appended to `members`.
    public static func members(
        ofObjectAt offset: Int, in text: [UInt8], limits: Limits, members: inout [JSONMember]
    ) throws(DecodeError) {
        let result: Result<Void, DecodeError> = text.withUnsafeBytes { buffer in
            do throws(DecodeError) {
                guard offset >= 0, offset < buffer.count, buffer[offset] == 0x7B else {
                    return .failure(DecodeError("not-an-object", "no object starts here", at: offset))
                }
                var p = JSONParser(buffer: buffer, limits: limits)
                p.pos = offset
                try p.walkObject(depth: 1, recording: &members)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The value at `span` of a text `scan` accepted with `limits`, made.
    public static func value(at span: JSONSpan, in text: [UInt8], limits: Limits) throws(DecodeError) -> JSONValue {
        let result: Result<JSONValue, DecodeError> = text.withUnsafeBytes { buffer in
            do throws(DecodeError) {
                guard span.start >= 0, span.start < span.end, span.end <= buffer.count else {
                    return .failure(DecodeError("not-a-value", "no value stands there", at: span.start))
                }
                guard span.kind == .string, span.isPlain, span.end - span.start >= 2 else {
                    var p = JSONParser(buffer: buffer, limits: limits)
                    p.pos = span.start
                    return .success(try p.parseValue(depth: 0))
                }
                // Already checked as UTF-8: only made, not read again.
                let inside = UnsafeRawBufferPointer(rebasing: buffer[(span.start + 1)..<(span.end - 1)])
                return .success(.string(String(decoding: inside, as: UTF8.self)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Checks the value at `pos` as `parseValue` would and moves past it; where it stood.
    mutating func skipValue(depth: Int) throws(DecodeError) -> JSONSpan {
        let start = pos
        let kind = try kindHere()
        switch kind {
        case .object:
            var none: [JSONMember] = []
            try walkObject(depth: depth + 1, recording: &none, keep: false)
        case .array:
            guard try open(depth: depth + 1, close: 0x5D) else { break }
            var count = 0
            repeat {
                skipSpace()
                _ = try skipValue(depth: depth + 1)
                try countElement(after: count)
                count += 1
            } while try toNext(close: 0x5D)
        case .string: return try skipString()
        case .number: _ = try skipNumber()
        case .bool, .null: _ = try parseLiteral()
        }
        return JSONSpan(start: start, end: pos, kind: kind)
    }

    /// Checks the object at `pos` as `parseObject` would; with `keep`, appends its members.
    mutating func walkObject(depth: Int, recording members: inout [JSONMember], keep: Bool = true)
        throws(DecodeError)
    {
        guard try open(depth: depth, close: 0x7D) else { return }
        var count = 0
        repeat {
            try toMemberName()
            let key = try skipString()
            try toMemberValue()
            let value = try skipValue(depth: depth)
            try countMember(after: count)
            count += 1
            if keep { members.append(JSONMember(key: key, value: value)) }
        } while try toNext(close: 0x7D)
    }

    /// Checks the string at `pos` as `parseString` would and moves past it.
    @inline(__always)
    mutating func skipString() throws(DecodeError) -> JSONSpan {
        let open = pos
        let (p, ascii) = plainRun(from: open + 1)
        if ascii, p < buffer.count, buffer[p] == 0x22 {
            pos = p + 1
            return JSONSpan(start: open, end: pos, kind: .string, isPlain: true)
        }
        // Non-ASCII, escapes or an error: as `parseString` reads it, exactly.
        _ = try parseString()
        return JSONSpan(start: open, end: pos, kind: .string, isPlain: p < buffer.count && buffer[p] == 0x22)
    }
}
