import Ledger

/// The order's head: its id, severity and standing, and the queue's facts about it.
enum OrderSummary {
    static func write(_ w: inout HTMLWriter, _ d: OrderDossier) {
        let f = d.order.flagged
        w.element("section", [.id("summary"), .class("summary"), .attr("data-order-id", f.orderID)]) { w in
            w.element("h1") { w in
                w.severity(f.severity)
                w.text(" Order ")
                w.element("span", [.id("order-id"), .class("ident")], text: f.orderID)
                w.text(" ")
                let standing = standing(d.order)
                w.element("span", [.class("tag standing standing-" + standing)], text: standing)
            }
            w.element("dl", [.class("facts")]) { w in
                fact(&w, "User", f.userID, ident: true)
                fact(&w, "Platform", f.platform)
                fact(&w, "Product", f.productID, ident: true)
                fact(&w, "Amount", QueueTable.amount(f.amount, f.currency))
                fact(&w, "Created") { w in w.time(f.createdAt) }
                fact(&w, "First flagged") { w in w.time(f.firstFlaggedAt) }
                fact(&w, "Last flagged") { w in w.time(f.lastFlaggedAt) }
                fact(&w, "Version") { w in w.text(String(d.version)) }
                fact(&w, "Rules", wide: true) { w in
                    for rule in f.rules { w.element("span", [.class("rule")], text: rule) }
                }
            }
        }
    }

    /// open, claimed or decided, as the queue's `status` names them.
    static func standing(_ o: QueueOrder) -> String {
        if o.verdict != nil { return "decided" }
        return o.claimedBy == nil ? "open" : "claimed"
    }

    private static func fact(_ w: inout HTMLWriter, _ name: String, _ value: String?, ident: Bool = false) {
        let text = value.flatMap { $0.isEmpty ? nil : $0 } ?? "—"
        fact(&w, name) { w in
            if ident { w.element("span", [.class("ident")], text: text) } else { w.text(text) }
        }
    }

    /// A name and its value, grouped so the list wraps pair by pair.
    private static func fact(
        _ w: inout HTMLWriter, _ name: String, wide: Bool = false, _ value: (inout HTMLWriter) -> Void
    ) {
        w.element("div", [.class(wide ? "fact wide" : "fact")]) { w in
            w.element("dt", text: name)
            w.element("dd", [], value)
        }
    }
}
