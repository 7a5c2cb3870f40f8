/// Why a payload or a record could not be read: a stable code tests compare,
/// a reason people read, and where it went wrong.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, kebab-case (`truncated`, `bad-length`, `too-deep`, `not-a-receipt`, …).
    public var code: String
    public var reason: String
    /// Byte offset in the decoded bytes (binary formats) or in the line (text formats).
    public var offset: Int

    public init(_ code: String, _ reason: String, at offset: Int) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    /// The same error, its offset moved by `base` (an inner buffer's start in the outer one).
    public func shifted(by base: Int) -> DecodeError {
        DecodeError(code, reason, at: offset + base)
    }

    public var description: String { "\(code) at offset \(offset): \(reason)" }
}
