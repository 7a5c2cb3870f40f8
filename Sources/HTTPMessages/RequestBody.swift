import IAPBasics
import JSONText

/// A request's body read as what its `Content-Type` says it is.
extension HTTPRequest {
    /// Refuses (415) a body whose `Content-Type` is missing or another than `essence`
    /// (`application/json`), or that names a charset other than UTF-8.
    public func requireContentType(_ essence: String) throws(HTTPRequestError) {
        guard let value = header("content-type") else {
            throw HTTPRequestError(.unsupportedMediaType, "the body has no Content-Type; send \(essence)")
        }
        let type = try MediaType(parsing: value)
        guard type.essence == essence.lowercased() else {
            throw HTTPRequestError(.unsupportedMediaType, "the body is not \(essence)")
        }
        if let charset = type.parameters.first("charset"), charset.lowercased() != "utf-8" {
            throw HTTPRequestError(.unsupportedMediaType, "the body's charset is not UTF-8")
        }
    }

    /// The pairs of an `application/x-www-form-urlencoded` body (an HTML form's POST).
    public func form(limits: HTTPLimits = .standard) throws(HTTPRequestError) -> NamedValues {
        try requireContentType("application/x-www-form-urlencoded")
        try checkBodySize(limits)
        return try FormURLEncoding.parse(body[...], maxPairs: limits.maxFormPairs, .badForm, "the form")
    }

    /// The object of an `application/json` body, read by `JSONParser` (RFC 8259, strict UTF-8)
    /// with nesting and container sizes capped by `limits`; any other JSON value is an error.
    public func jsonObject(limits: HTTPLimits = .standard) throws(HTTPRequestError) -> JSONObject {
        try requireContentType("application/json")
        try checkBodySize(limits)
        var caps = Limits.standard
        caps.maxPayloadBytes = limits.maxBodyBytes
        caps.maxDepth = limits.maxJSONDepth
        caps.maxElements = limits.maxJSONElements
        let value: JSONValue
        do throws(DecodeError) {
            value = try JSONParser.parse(body, limits: caps)
        } catch {
            throw HTTPRequestError(.badJSON, "the JSON body cannot be read: \(error.reason)", at: error.offset)
        }
        guard let object = value.object else {
            throw HTTPRequestError(.badJSON, "the JSON body is not an object")
        }
        return object
    }

    private func checkBodySize(_ limits: HTTPLimits) throws(HTTPRequestError) {
        guard body.count <= limits.maxBodyBytes else {
            throw HTTPRequestError(.bodyTooLarge, "a body of more than \(limits.maxBodyBytes) bytes")
        }
    }
}
