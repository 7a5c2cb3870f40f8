/// The outcome of checking a signature that could be read: it verifies, or why not.
public enum SignatureVerdict: Sendable, Equatable, CustomStringConvertible {
    case valid
    case invalid(reason: String)

    public var isValid: Bool { self == .valid }

    public var description: String {
        switch self {
        case .valid: return "valid"
        case .invalid(let reason): return reason
        }
    }
}
