/// How bad a finding is; ordered so `--fail-on` can compare.
public enum Severity: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case info = 0
    case low, medium, high, critical

    public init?(name: String) {
        switch name {
        case "info": self = .info
        case "low": self = .low
        case "medium": self = .medium
        case "high": self = .high
        case "critical": self = .critical
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .info: return "info"
        case .low: return "low"
        case .medium: return "medium"
        case .high: return "high"
        case .critical: return "critical"
        }
    }

    public var description: String { name }

    public static func < (a: Severity, b: Severity) -> Bool { a.rawValue < b.rawValue }
}
