/// The stable id of a named rule (docs/rules.md), as `.rules` files, findings and reports
/// spell it. Each rule declares its own (`ReplayedTransaction.id`); `NamedRules` knows
/// them all.
public struct RuleID: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    public var description: String { rawValue }

    public static func < (a: RuleID, b: RuleID) -> Bool { a.rawValue < b.rawValue }
}

/// A number a `.rules` file may set for one rule (`rule expired-validity grace_days 3`): a
/// whole number (of days, mostly) or yes/no, kept as 1/0. The parser takes either spelling
/// for either kind; the kind says how the documentation presents it.
public struct RuleParameter: Sendable {
    public enum Kind: Sendable {
        case number, yesNo
    }

    public let rule: RuleID
    public let name: String
    public let defaultValue: Int
    public let kind: Kind
    /// What it changes, in a few words, for the Rules README.
    public let meaning: String

    public init(rule: RuleID, _ name: String, default defaultValue: Int, _ kind: Kind, meaning: String) {
        self.rule = rule
        self.name = name
        self.defaultValue = defaultValue
        self.kind = kind
        self.meaning = meaning
    }
}
