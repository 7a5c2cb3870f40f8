/// Why a password was refused or could not be hashed: a code tests compare, a reason people read.
/// It never holds the password.
public struct DeskSecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case passwordTooShort = "password-too-short"
        case passwordTooLong = "password-too-long"
        /// Argon2id could not run: it could not have its memory.
        case hashingFailed = "hashing-failed"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
