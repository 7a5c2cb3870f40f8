/// A trust file in the Rules directory (`trust/apple/*`, `trust/google/*`) that cannot be
/// used: the tool reports it as a Rules problem naming the file.
public struct TrustFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
