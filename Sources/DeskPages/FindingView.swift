import JSONText

/// The latest run's findings of an order, each a findings.jsonl line (CONTRACT §6): its rule,
/// severity and message, and its evidence as a table. A line that does not read as a finding
/// is shown as the text it is, never dropped.
enum FindingView {
    static func section(_ w: inout HTMLWriter, _ lines: [String]) {
        w.element("section", [.id("findings"), .class("block")]) { w in
            w.element("h2", text: "Findings of the latest run (\(lines.count))")
            if lines.isEmpty { w.element("p", [.class("quiet")], text: "The latest run kept no finding lines.") }
            for line in lines { finding(&w, line) }
        }
    }

    static func finding(_ w: inout HTMLWriter, _ line: String) {
        guard let o = (try? JSONParser.parse(line))?.object else {
            w.element("article", [.class("finding unreadable")]) { w in
                w.element("h3", text: "A finding line that does not read as JSON")
                w.element("pre", [.class("raw")], text: line)
            }
            return
        }
        let rule = o["rule"]?.scalarText ?? "(no rule)"
        let severityName = o["severity"]?.scalarText
        let level = SeverityView.level(named: severityName)
        let cls = level.map(SeverityView.cssClass) ?? "sev-unknown"
        w.element("article", [.class("finding " + cls), .attr("data-rule", rule)]) { w in
            w.element("h3") { w in
                if let level {
                    w.severity(level)
                } else {
                    w.element("span", [.class("sev sev-unknown")], text: severityName ?? "no severity")
                }
                w.text(" ")
                w.element("code", [.class("rule")], text: rule)
                if let exempted = o["exempted"]?.scalarText {
                    w.element("span", [.class("tag exempted")], text: "exempted: " + exempted)
                }
                if let review = o["review"]?.object, let status = review["status"]?.scalarText {
                    let verdict = review["verdict"]?.scalarText.map { " " + $0 } ?? ""
                    w.element("span", [.class("tag review")], text: status + verdict)
                }
            }
            if let message = o["message"]?.scalarText { w.element("p", [.class("finding-message")], text: message) }
            evidence(&w, o["evidence"])
            others(&w, o)
        }
    }

    private static func evidence(_ w: inout HTMLWriter, _ value: JSONValue?) {
        switch value {
        case .object(let e)?:
            JSONView.table(&w, e, class: "evidence")
        case nil, .null?:
            w.element("p", [.class("quiet")], text: "No evidence.")
        case let other?:
            w.element("div", [.class("evidence")]) { w in JSONView.value(&w, other, depth: 1) }
        }
    }

    /// What the line holds beyond the fields shown above (a newer writer's fields): kept visible.
    private static func others(_ w: inout HTMLWriter, _ o: JSONObject) {
        let known: Set<String> = [
            "order_id", "user_id", "rule", "severity", "message", "evidence", "exempted", "review",
        ]
        let rest = JSONObject(o.members.filter { !known.contains($0.key) })
        guard !rest.members.isEmpty else { return }
        JSONView.table(&w, rest, class: "extra")
    }
}
