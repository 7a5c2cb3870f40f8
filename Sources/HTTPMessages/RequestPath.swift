/// The path of a request target as decoded segments, and back.
///
/// RFC 9112 §3.2.1 origin-form: `absolute-path [ "?" query ]`, with RFC 3986 §3.3
/// `absolute-path = 1*( "/" segment )`. `/` is no segment, `/queue` is `["queue"]`,
/// `/a//b/` is `["a", "", "b", ""]`. Each segment is percent-decoded and must be UTF-8.
///
/// A segment joined to a directory names a file inside it, whatever the request: a segment
/// is refused when it is `.` or `..` (also written `%2e`), holds `/` or `\` (also written
/// `%2F`, `%5C`), NUL or another control character; raw bytes that RFC 3986 leaves out of a
/// path (space, controls, `#`, `\`, non-ASCII) are refused before decoding.
public enum RequestPath {
    /// The segments of `path` (the target up to its `?`); its indices are offsets in the target.
    public static func segments(_ path: ArraySlice<UInt8>, limits: HTTPLimits) throws(HTTPRequestError) -> [String] {
        guard path.first == UInt8(ascii: "/") else {
            throw HTTPRequestError(.badTarget, "the request target does not begin with /", at: path.startIndex)
        }
        if path.count == 1 { return [] }
        var segments: [String] = []
        var start = path.startIndex + 1
        while true {
            let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex
            guard segments.count < limits.maxPathSegments else {
                throw HTTPRequestError(
                    .targetTooLong, "the path has more than \(limits.maxPathSegments) segments", at: start)
            }
            segments.append(try segment(path[start..<end], slashes: limits.segmentsMayHoldSlashes))
            guard end < path.endIndex else { return segments }
            start = end + 1
        }
    }

    public static func segments(_ path: String, limits: HTTPLimits = .standard) throws(HTTPRequestError) -> [String] {
        try segments(Array(path.utf8)[...], limits: limits)
    }

    /// One segment, decoded and checked.
    static func segment(_ raw: ArraySlice<UInt8>, slashes: Bool = false) throws(HTTPRequestError) -> String {
        for i in raw.indices where !isAllowedRaw(raw[i]) {
            throw HTTPRequestError(.badPath, "the path has a byte that must be percent-encoded", at: i)
        }
        let decoded = try PercentEncoding.decode(raw, plusIsSpace: false, .badPath, "a path segment")
        if decoded == [UInt8(ascii: ".")] || decoded == [UInt8(ascii: "."), UInt8(ascii: ".")] {
            throw HTTPRequestError(.badPath, "a path segment is . or ..", at: raw.startIndex)
        }
        for byte in decoded
        where byte < 0x20 || byte == 0x7F || (!slashes && (byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\"))) {
            throw HTTPRequestError(.badPath, "a path segment holds /, \\ or a control character", at: raw.startIndex)
        }
        return try PercentEncoding.text(decoded, .badPath, "a path segment", at: raw.startIndex)
    }

    /// Printable ASCII but space, `#`, `\`, `?` (the target was cut at its first `?`) and `/`.
    static func isAllowedRaw(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "\\")
    }

    /// The path that names `segments`: each percent-encoded but for RFC 3986's unreserved
    /// characters, so that `segments(encode(s)) == s` for segments that pass the checks. A
    /// segment `.` or `..` is written `%2E`, `%2E%2E`: a browser would resolve it, not send it.
    public static func encode(_ segments: [String]) -> String {
        guard !segments.isEmpty else { return "/" }
        return segments.map { "/" + encode(segment: $0) }.joined()
    }

    static func encode(segment: String) -> String {
        if segment == "." || segment == ".." { return String(repeating: "%2E", count: segment.count) }
        return PercentEncoding.encode(segment, keeping: PercentEncoding.isUnreserved, spaceAsPlus: false)
    }
}
