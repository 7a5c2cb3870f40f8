import Screening

/// What each rule on the report page flags, in one sentence: a named rule's own (from the
/// list of named rules), a custom rule's message and where it is defined.
public struct RuleLegend: Sendable {
    private var sentences: [String: String] = [:]

    public init(_ settings: RuleSettings = RuleSettings()) {
        for rule in settings.named.all { sentences[rule.id.rawValue] = rule.summary }
        for c in settings.customRules {
            sentences[c.id] = "custom rule (\(c.file):\(c.line))" + (c.message.map { ": \($0)" } ?? "")
        }
    }

    public func sentence(_ rule: String) -> String? { sentences[rule] }
}
