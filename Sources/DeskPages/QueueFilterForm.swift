import Ledger
import Screening

/// The queue's filters as a GET form (`/queue?status=…&rule=…&severity=…&assignee=…&q=…&limit=…`)
/// and as the link to the next page, which keeps them and adds `after`.
enum QueueFilterForm {
    static func write(_ w: inout HTMLWriter, _ filter: QueueFilter, context: DeskPageContext) {
        w.element("form", [.id("filters"), .class("filters"), .attr("method", "get"), .action(DeskURL("/queue"))]) {
            w in
            w.labelled("Status", for: "f-status") { w in
                w.select(
                    name: "status", id: "f-status",
                    options: QueueFilter.Status.allCases.map { ($0.rawValue, $0.rawValue) },
                    selected: filter.status.rawValue)
            }
            w.labelled("Rule", for: "f-rule") { w in
                w.void("input", input("rule", "f-rule", filter.rule, placeholder: "any rule"))
            }
            w.labelled("Severity at least", for: "f-severity") { w in
                let levels = Severity.allCases.map { ($0.name, $0.name) }
                w.select(
                    name: "severity", id: "f-severity", options: [("", "any")] + levels,
                    selected: severityName(filter.minimumSeverity))
            }
            w.labelled("Assignee", for: "f-assignee") { w in
                w.void("input", input("assignee", "f-assignee", filter.assignee, placeholder: "anyone"))
            }
            w.labelled("Order, user or transaction id", for: "q") { w in
                w.void(
                    "input",
                    input("q", "q", filter.query, placeholder: "exact id", type: "search") + [
                        .class("wide")
                    ])
            }
            w.labelled("Per page", for: "f-limit") { w in
                w.void(
                    "input",
                    [
                        .attr("type", "number"), .attr("name", "limit"), .id("f-limit"), .attr("min", "1"),
                        .attr("max", "500"), .attr("value", String(filter.limit)), .class("narrow"),
                    ])
            }
            w.button("Filter")
            w.element(
                "a", [.id("mine-link"), .class("mine"), .href(mine(context.user, limit: filter.limit))],
                text: "Claimed by me")
        }
    }

    /// `/queue` with the filter's values and `after`; empty values are left out.
    static func url(_ filter: QueueFilter, after: String?) -> DeskURL {
        DeskURL(
            "/queue",
            query: [
                ("status", filter.status.rawValue), ("rule", filter.rule),
                ("severity", severityName(filter.minimumSeverity)), ("assignee", filter.assignee),
                ("q", filter.query), ("limit", String(filter.limit)), ("after", after),
            ])
    }

    private static func mine(_ user: String, limit: Int) -> DeskURL {
        url(QueueFilter(status: .claimed, assignee: user, limit: limit), after: nil)
    }

    /// The name `severity=` carries (`high`); "" for none, the number for one outside 0…4.
    private static func severityName(_ level: Int?) -> String {
        guard let level else { return "" }
        return Severity(rawValue: level)?.name ?? String(level)
    }

    private static func input(
        _ name: String, _ id: String, _ value: String?, placeholder: String, type: String = "text"
    ) -> [HTMLAttribute] {
        [
            .attr("type", type), .attr("name", name), .id(id), .attr("value", value ?? ""),
            .attr("placeholder", placeholder), .attr("autocomplete", "off"), .attr("spellcheck", "false"),
        ]
    }
}
