import JSONText

/// What a handler answers: a status, header fields in order, a body. The server adds
/// `Content-Length`, `Date` and `Connection` itself (libmicrohttpd refuses them from the
/// application); a header the server cannot send (a CR or LF in it) turns the answer into a 500.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: NamedValues
    public var body: [UInt8]

    public init(status: Int = 200, headers: NamedValues = NamedValues(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `value` written as JSON, `<`, `>` and `&` escaped so that no JSON text reads as HTML.
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        var body: [UInt8] = []
        JSONWriter(htmlSafe: true).write(value, to: &body)
        return typed("application/json; charset=utf-8", status, body)
    }

    public static func html(_ page: String, status: Int = 200) -> HTTPResponse {
        typed("text/html; charset=utf-8", status, Array(page.utf8))
    }

    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        typed("text/plain; charset=utf-8", status, Array(text.utf8))
    }

    /// 303 See Other: the browser GETs `location` (after a POST: the form is not sent again).
    public static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: NamedValues([NamedValue("Location", location)]))
    }

    /// What a server answers to a request it could not read, by default: the error's status
    /// and reason as text.
    public static func refusal(_ error: HTTPRequestError) -> HTTPResponse {
        text("\(error.reason)\n", status: error.status)
    }

    private static func typed(_ contentType: String, _ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: NamedValues([NamedValue("Content-Type", contentType)]), body: body)
    }

    /// Adds a field, keeping those of the same name (`Set-Cookie` twice).
    public mutating func addHeader(_ name: String, _ value: String) {
        headers.pairs.append(NamedValue(name, value))
    }

    /// Sets a field, replacing every field of that name (any case).
    public mutating func setHeader(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        headers.pairs.removeAll { $0.name.lowercased() == lowered }
        headers.pairs.append(NamedValue(name, value))
    }

    /// The same response with a field added.
    public func adding(_ name: String, _ value: String) -> HTTPResponse {
        var copy = self
        copy.addHeader(name, value)
        return copy
    }

    /// The first value of the field `name` (any case).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.pairs.first { $0.name.lowercased() == lowered }?.value
    }

    /// The first header field that cannot be sent as it is: a name that is not a token
    /// (RFC 9110 §5.1), or a value with a control character but tab (§5.5; a CR or LF
    /// would end the field and start one of the value's making).
    public var unsendableHeader: NamedValue? {
        headers.pairs.first { field in
            field.name.isEmpty || !field.name.utf8.allSatisfy(TokenReader.isTokenByte)
                || field.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
        }
    }
}
