/// One request, read whole: what the handler of a server is given.
///
/// Built from the bytes a server received (`init(method:target:fields:…)`), every part
/// checked against `HTTPLimits`; what cannot be read is an `HTTPRequestError` whose status
/// the server answers with, and the handler never sees the request.
public struct HTTPRequest: Sendable {
    /// As sent (`GET`, `POST`; case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request target as sent: path and query, percent-escapes kept.
    public var target: String
    /// The path's segments, decoded (`RequestPath`): none names a file outside a directory.
    public var path: [String]
    /// The query string's pairs, decoded (`FormURLEncoding`).
    public var query: NamedValues
    /// Header fields in the order sent, names lower-cased, repeated fields kept.
    public var headers: NamedValues
    /// The cookies of the `Cookie` field(s) (`CookieHeader`).
    public var cookies: NamedValues
    public var body: [UInt8]
    /// The client's IP address as text (`127.0.0.1`, `::1`); empty when unknown.
    public var peer: String

    /// The request as the bytes of its request line and header fields gave it.
    public init(
        method: [UInt8], target: [UInt8], fields: [(name: [UInt8], value: [UInt8])], body: [UInt8] = [],
        peer: String = "", limits: HTTPLimits = .standard
    ) throws(HTTPRequestError) {
        guard target.count <= limits.maxTargetBytes else {
            throw HTTPRequestError(.targetTooLong, "the request target is longer than \(limits.maxTargetBytes) bytes")
        }
        try Self.checkSize(of: fields, limits: limits)
        guard !method.isEmpty, method.allSatisfy(TokenReader.isTokenByte) else {
            throw HTTPRequestError(.badMethod, "the method is not a token")
        }
        self.method = String(decoding: method, as: UTF8.self)
        self.target = try Self.targetText(target)
        let question = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        path = try RequestPath.segments(target[..<question], limits: limits)
        query =
            question < target.endIndex
            ? try FormURLEncoding.parse(
                target[(question + 1)...], maxPairs: limits.maxQueryPairs, .badQuery, "the query")
            : NamedValues()
        headers = NamedValues(try fields.map { f throws(HTTPRequestError) in try Self.field(f.name, f.value) })
        cookies = try CookieHeader.parse(headers.all("cookie"), limits: limits)
        self.body = body
        self.peer = peer
    }

    /// The same from text, for tests and for requests made in code.
    public init(
        method: String, target: String, headers: [NamedValue] = [], body: [UInt8] = [], peer: String = "",
        limits: HTTPLimits = .standard
    ) throws(HTTPRequestError) {
        try self.init(
            method: Array(method.utf8), target: Array(target.utf8),
            fields: headers.map { (Array($0.name.utf8), Array($0.value.utf8)) }, body: body, peer: peer,
            limits: limits)
    }

    /// The first value of the header field `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first(name.lowercased())
    }

    /// The first cookie named `name`.
    public func cookie(_ name: String) -> String? {
        cookies.first(name)
    }

    /// RFC 9112 §3.2: a request target is visible ASCII; a fragment (`#`) is never sent.
    static func targetText(_ target: [UInt8]) throws(HTTPRequestError) -> String {
        if let bad = target.firstIndex(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }) {
            throw HTTPRequestError(.badTarget, "the request target has a space, control, # or non-ASCII byte", at: bad)
        }
        return String(decoding: target, as: UTF8.self)
    }

    /// 431 for too many fields or too many bytes of them, each counted as `name: value\r\n`.
    static func checkSize(of fields: [(name: [UInt8], value: [UInt8])], limits: HTTPLimits) throws(HTTPRequestError) {
        guard fields.count <= limits.maxHeaderCount else {
            throw HTTPRequestError(.headersTooLarge, "more than \(limits.maxHeaderCount) header fields")
        }
        var bytes = 0
        for field in fields {
            bytes += field.name.count + field.value.count + 4
            guard bytes <= limits.maxHeaderBytes else {
                throw HTTPRequestError(.headersTooLarge, "header fields of more than \(limits.maxHeaderBytes) bytes")
            }
        }
    }

    /// RFC 9110 §5.1, §5.5: a field name is a token; a value is UTF-8 text without controls
    /// but horizontal tab (obs-text other than UTF-8 is refused).
    static func field(_ name: [UInt8], _ value: [UInt8]) throws(HTTPRequestError) -> NamedValue {
        guard !name.isEmpty, name.allSatisfy(TokenReader.isTokenByte) else {
            throw HTTPRequestError(.badHeader, "a header field name is not a token")
        }
        let lowered = name.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 0x20 : $0 }
        if let bad = value.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            throw HTTPRequestError(.badHeader, "a header field value holds a control character", at: bad)
        }
        guard let text = String(validating: value, as: UTF8.self) else {
            throw HTTPRequestError(.badHeader, "a header field value is not UTF-8")
        }
        return NamedValue(String(decoding: lowered, as: UTF8.self), text)
    }
}
