import Ledger

/// The queue's orders as a table a keyboard can walk: each row carries `data-order-id` and
/// one link to its order (desk.js moves a selection over the rows and opens that link).
enum QueueTable {
    static func write(_ w: inout HTMLWriter, _ orders: [QueueOrder], context: DeskPageContext) {
        w.element("table", [.id("queue"), .class("queue")]) { w in
            w.element("thead") { w in
                w.element("tr") { w in
                    for (title, cls) in columns { w.element("th", [.attr("scope", "col"), .class(cls)], text: title) }
                }
            }
            w.element("tbody") { w in
                for order in orders { row(&w, order, context) }
            }
        }
    }

    private static let columns = [
        ("Severity", "c-sev"), ("Order", "c-order"), ("User", "c-user"), ("Product", "c-product"),
        ("Amount", "c-amount num"), ("Created", "c-time"), ("Rules", "c-rules"), ("Flagged", "c-time"),
        ("Claim · verdict", "c-standing"),
    ]

    private static func row(_ w: inout HTMLWriter, _ order: QueueOrder, _ context: DeskPageContext) {
        let f = order.flagged
        var classes = ["order-row", SeverityView.cssClass(f.severity)]
        if order.claimedBy == context.user { classes.append("mine") }
        if order.verdict != nil { classes.append("decided") }
        let attributes: [HTMLAttribute] = [
            .class(classes.joined(separator: " ")), .attr("data-order-id", f.orderID),
            .attr("data-severity", String(f.severity)),
        ]
        w.element("tr", attributes) { w in
            w.element("td", [.class("c-sev")]) { w in w.severity(f.severity) }
            w.element("td", [.class("c-order")]) { w in
                w.element("a", [.class("order-link ident"), .href(DeskURL.order(f.orderID))], text: f.orderID)
            }
            w.element("td", [.class("c-user ident")], text: f.userID ?? "—")
            w.element("td", [.class("c-product")]) { w in
                w.element("span", [.class("ident")], text: f.productID ?? "—")
                if let platform = f.platform { w.element("span", [.class("platform")], text: platform) }
            }
            w.element("td", [.class("c-amount num")], text: amount(f.amount, f.currency))
            w.element("td", [.class("c-time")]) { w in w.shortTime(f.createdAt) }
            w.element("td", [.class("c-rules")]) { w in
                for rule in f.rules { w.element("span", [.class("rule")], text: rule) }
            }
            w.element("td", [.class("c-time")]) { w in
                w.shortTime(f.firstFlaggedAt)
                if f.lastFlaggedAt != f.firstFlaggedAt {
                    w.element("span", [.class("later")]) { w in
                        w.text("last ")
                        w.shortTime(f.lastFlaggedAt)
                    }
                }
            }
            // Who holds it and what was decided share a cell: most orders have neither.
            w.element("td", [.class("c-standing")]) { w in
                claim(&w, order, context)
                if let verdict = order.verdict {
                    w.element("span", [.class("tag verdict-" + verdictClass(verdict))], text: verdict)
                    if let by = order.verdictBy { w.element("span", [.class("by")], text: " by " + by) }
                }
            }
        }
    }

    private static func claim(_ w: inout HTMLWriter, _ order: QueueOrder, _ context: DeskPageContext) {
        guard let by = order.claimedBy else { return }
        w.element("span", [.class(by == context.user ? "holder you" : "holder")], text: by)
        w.text(" ")
        if let until = order.claimedUntil {
            // The minutes left say more in a list; the end itself is in the title.
            let end = DeskTime.text(until)
            w.element("time", [.class("until"), .attr("datetime", end), .attr("title", "until " + end)]) { w in
                w.text(TimeView.left(until - context.now))
            }
        }
    }

    /// `4.99 USD`; whichever half is known.
    static func amount(_ amount: String?, _ currency: String?) -> String {
        [amount, currency].compactMap { $0 }.joined(separator: " ")
    }

    /// The class a verdict's tag takes: the two the desk gives, anything else as `other`.
    static func verdictClass(_ verdict: String) -> String {
        verdict == "fraud" || verdict == "legit" ? verdict : "other"
    }
}
