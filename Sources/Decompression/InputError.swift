/// An input that cannot be read on: missing, unreadable, a corrupt or truncated compressed
/// stream, a decompression bomb, a document that refuses to parse. The run stops with
/// exit status 3; a bad *record* is not an `InputError` but a malformed-record finding.
public struct InputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, kebab-case (`cannot-open`, `read-failed`, `gzip-corrupt`, `gzip-truncated`,
    /// `decompression-limit`, `xml-malformed`, `xml-dtd-refused`, …).
    public var code: String
    public var path: String
    public var reason: String

    public init(path: String, reason: String, code: String = "unreadable") {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
