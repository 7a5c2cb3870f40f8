import Ledger

extension DeskPages {
    /// `GET /audit` (leads): the trail since a time, each entry's order a link.
    public static func audit(_ entries: [AuditEntry], since: String?, context: DeskPageContext) -> String {
        PageFrame.render(title: "Audit trail", context: context, section: .audit) { w in
            w.element("h1", text: "Audit trail")
            w.element(
                "form", [.id("audit-filter"), .class("filters"), .attr("method", "get"), .action(DeskURL("/audit"))]
            ) { w in
                w.labelled("Since", for: "since") { w in
                    w.void(
                        "input",
                        [
                            .attr("type", "text"), .attr("name", "since"), .id("since"), .attr("value", since ?? ""),
                            .attr("placeholder", "2024-03-01T00:00:00Z"), .attr("autocomplete", "off"),
                            .attr("spellcheck", "false"),
                        ])
                }
                w.button("Show")
            }
            w.element(
                "p", [.id("counts"), .class("counts")],
                text: entries.count == 1 ? "1 entry" : "\(entries.count) entries")
            guard !entries.isEmpty else {
                w.element("p", [.id("empty"), .class("empty")], text: "No entry since then.")
                return
            }
            OrderFacts.table(&w, ["At", "User", "Action", "Order", "Detail"], id: "audit") { w in
                for e in entries {
                    w.element("tr", [.attr("data-action", e.action.rawValue)]) { w in
                        w.element("td", [.class("c-time")]) { w in w.time(e.at) }
                        w.element("td", [.class("ident")], text: e.user)
                        w.element("td") { w in w.element("span", [.class("tag action")], text: e.action.rawValue) }
                        w.element("td") { w in
                            if let id = e.orderID { OrderFacts.orderLink(&w, id) }
                        }
                        w.element("td", [.class("words")], text: e.detail ?? "")
                    }
                }
            }
        }
    }
}
