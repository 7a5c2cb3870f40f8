import Screening

/// A severity as a word with a class per level, which desk.css colours.
extension HTMLWriter {
    mutating func severity(_ raw: Int) {
        let name = Severity(rawValue: raw)?.name ?? "severity \(raw)"
        element("span", [.class("sev " + SeverityView.cssClass(raw))], text: name)
    }
}

enum SeverityView {
    /// `sev-high`; `sev-unknown` for a number outside 0…4.
    static func cssClass(_ raw: Int) -> String {
        "sev-" + (Severity(rawValue: raw)?.name ?? "unknown")
    }

    /// The level a findings.jsonl line names (`"high"`), as the number the queue uses.
    static func level(named name: String?) -> Int? {
        name.flatMap(Severity.init(name:))?.rawValue
    }
}
