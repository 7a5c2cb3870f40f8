/// What one rule said about one order: its finding's words and evidence when it fires,
/// else why it passed or did not apply. The "why" is only built when `explain` traces the
/// order: screening a night asks for none.
public struct RuleVerdict {
    /// `explain` is listening: the words of a pass or a non-application are kept.
    public let tracing: Bool
    public private(set) var fired: (message: String, evidence: Evidence)?
    /// What `explain` says when the rule fires but is off; nil: "would have fired: <message>".
    public private(set) var offWords: String?
    public private(set) var note: (outcome: RuleTrace.Outcome, why: String)?

    init(tracing: Bool) {
        self.tracing = tracing
    }

    public mutating func fire(_ message: String, _ evidence: Evidence, whenOff: @autoclosure () -> String? = nil) {
        fired = (message, evidence)
        if tracing { offWords = whenOff() }
    }

    public mutating func pass(_ why: @autoclosure () -> String) {
        if tracing { note = (.passed, why()) }
    }

    public mutating func notApplicable(_ why: @autoclosure () -> String) {
        if tracing { note = (.notApplicable, why()) }
    }
}
