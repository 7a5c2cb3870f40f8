/// Every cap on a request's bytes in one place, so tests (and the fuzzer) can shrink them.
/// The status a request over a cap gets is its error's (`HTTPRequestError.Code.status`).
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request target (path and query, as sent), in bytes: 414 past it.
    public var maxTargetBytes: Int = 8 << 10
    /// Whether a decoded path segment may hold `/` or `\` (sent as `%2F`, `%5C`): only for a
    /// server that never joins a segment to a directory (the desk: an order id is any text,
    /// and its assets are found by exact name).
    public var segmentsMayHoldSlashes = false
    /// Most path segments: 414 past it.
    public var maxPathSegments: Int = 64
    /// Most header fields: 431 past it.
    public var maxHeaderCount: Int = 100
    /// Most bytes of header fields, each counted as `name: value` and its line end: 431 past it.
    public var maxHeaderBytes: Int = 16 << 10
    /// Most cookies in the `Cookie` header(s): 431 past it (RFC 6265 asks browsers for 50 a domain).
    public var maxCookies: Int = 100
    /// Most `name=value` pairs in a query string: 400 past it.
    public var maxQueryPairs: Int = 100
    /// Most `name=value` pairs in a form body: 400 past it.
    public var maxFormPairs: Int = 1_000
    /// Largest body, in bytes: 413 past it, announced or sent.
    public var maxBodyBytes: Int = 1 << 20
    /// Deepest nesting of a JSON body.
    public var maxJSONDepth: Int = 32
    /// Most members or elements in one JSON object or array of a body.
    public var maxJSONElements: Int = 10_000

    public init() {}

    public static let standard = HTTPLimits()

    /// Caps that a few hundred bytes reach, each of them: the tests and the fuzzer use them.
    public static let small: HTTPLimits = {
        var l = HTTPLimits()
        l.maxTargetBytes = 256
        l.maxPathSegments = 8
        l.maxHeaderCount = 8
        l.maxHeaderBytes = 512
        l.maxCookies = 4
        l.maxQueryPairs = 4
        l.maxFormPairs = 4
        l.maxBodyBytes = 1024
        l.maxJSONDepth = 4
        l.maxJSONElements = 8
        return l
    }()
}
