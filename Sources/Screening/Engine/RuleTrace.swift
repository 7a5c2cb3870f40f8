/// What each rule concluded about one order and why: the answer to "why was this (not)
/// flagged?" that `iapscreen explain` prints. Screening passes none; only explain asks.
public final class RuleTrace {
    public enum Outcome: String, Sendable {
        /// The rule found something (its finding follows).
        case fired
        /// The rule looked and found nothing wrong.
        case passed
        /// The rule had nothing to look at (no receipt entry, not a subscription, …).
        case notApplicable = "n/a"
        /// Turned off in the Rules directory.
        case off
    }

    public struct Line: Sendable {
        public var rule: String
        public var outcome: Outcome
        public var why: String
    }

    public private(set) var lines: [Line] = []

    public init() {}

    func note(_ rule: String, _ outcome: Outcome, _ why: String) {
        lines.append(Line(rule: rule, outcome: outcome, why: why))
    }
}
