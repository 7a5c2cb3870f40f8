import Screening

/// `rules list`: every named rule as the settings have it, then the custom rules.
enum RuleListing {
    static func text(_ s: RuleSettings) -> String {
        let width =
            2 + max(s.named.all.map { $0.id.rawValue.count }.max() ?? 0, s.customRules.map(\.id.count).max() ?? 0)
        var out = ""
        for r in s.named.all {
            let severity = s.isEnabled(r.id) ? s.severity(r.id).name : "off"
            out += "\(pad(r.id.rawValue, width)) \(pad(severity, 9)) \(r.summary)\n"
            for p in r.parameters {
                let value = s.parameter(r.id, p.name)
                let shown = p.kind == .yesNo ? (value == 0 ? "no" : "yes") : String(value)
                out += "\(String(repeating: " ", count: width + 11))\(p.name) \(shown): \(p.meaning)\n"
            }
        }
        for c in s.customRules {
            out +=
                "\(pad(c.id, width)) \(pad(c.severity.name, 9)) custom rule (\(c.file):\(c.line))"
                + (c.message.map { ": \($0)" } ?? "") + "\n"
        }
        return out
    }
}
