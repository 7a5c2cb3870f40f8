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

    /// Every rule's sentence, by rule id (a sharded run's worker keeps them for `merge`).
    public var all: [(rule: String, sentence: String)] {
        sentences.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The legend `all` gave.
    public init(sentences: [(rule: String, sentence: String)]) {
        for (rule, sentence) in sentences { self.sentences[rule] = sentence }
    }
}
