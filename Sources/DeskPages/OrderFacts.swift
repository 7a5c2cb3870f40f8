import Ledger

/// What the ledger knows around an order: who took its store transactions, what the stores
/// said since, each run that flagged it, and its user's other flagged orders.
enum OrderFacts {
    static func transactions(_ w: inout HTMLWriter, _ list: [TransactionTaker]) {
        w.element("section", [.id("transactions"), .class("block")]) { w in
            w.element("h2", text: "Store transactions")
            guard !list.isEmpty else {
                w.element("p", [.class("quiet")], text: "The receipt named no store transaction.")
                return
            }
            table(&w, ["Transaction", "Taken by", "Taken at", "Also credited to"]) { w in
                for t in list {
                    w.element("tr") { w in
                        w.element("td", [.class("ident")], text: t.key)
                        w.element("td") { w in orderLink(&w, t.takenBy) }
                        w.element("td") { w in w.time(t.takenAt) }
                        w.element("td") { w in orderLinks(&w, t.alsoCreditedTo) }
                    }
                }
            }
        }
    }

    static func storeEvents(_ w: inout HTMLWriter, _ events: [(type: String, at: String, reason: String?)]) {
        w.element("section", [.id("store-events"), .class("block")]) { w in
            w.element("h2", text: "Store events")
            guard !events.isEmpty else {
                w.element("p", [.class("quiet")], text: "No refund, revocation or other store event.")
                return
            }
            table(&w, ["Event", "At", "Reason"]) { w in
                for e in events {
                    w.element("tr") { w in
                        w.element("td") { w in w.element("code", text: e.type) }
                        w.element("td") { w in w.time(e.at) }
                        w.element("td", [.class("words")], text: e.reason ?? "—")
                    }
                }
            }
        }
    }

    static func history(_ w: inout HTMLWriter, _ runs: [(run: Int64, at: String, rules: [String])]) {
        w.element("section", [.id("history"), .class("block")]) { w in
            w.element("h2", text: "Runs that flagged it")
            table(&w, ["Run", "At", "Rules"]) { w in
                for r in runs {
                    w.element("tr") { w in
                        w.element("td", [.class("num")], text: String(r.run))
                        w.element("td") { w in w.time(r.at) }
                        w.element("td") { w in
                            for rule in r.rules { w.element("span", [.class("rule")], text: rule) }
                        }
                    }
                }
            }
        }
    }

    static func user(_ w: inout HTMLWriter, _ facts: UserFacts, current: String) {
        w.element("section", [.id("user-facts"), .class("panel user")]) { w in
            w.element("h2", text: "The user")
            w.element("dl", [.class("facts")]) { w in
                let consent = facts.consent.map { $0 ? "given" : "refused" } ?? "not stated"
                for (name, value, alert) in [
                    ("Flagged orders", String(facts.orders.count), false),
                    ("Refunds", String(facts.refunds), facts.refunds > 0), ("Consent", consent, false),
                ] {
                    w.element("div", [.class("fact")]) { w in
                        w.element("dt", text: name)
                        w.element("dd", alert ? [.class("alert")] : [], text: value)
                    }
                }
            }
            w.element("ul", [.class("order-list")]) { w in
                for id in facts.orders {
                    w.element("li") { w in
                        if id == current {
                            w.element("span", [.class("ident current")], text: id + " (this one)")
                        } else {
                            orderLink(&w, id)
                        }
                    }
                }
            }
        }
    }

    static func orderLink(_ w: inout HTMLWriter, _ id: String?) {
        guard let id else {
            w.element("span", [.class("none")], text: "—")
            return
        }
        w.element("a", [.class("ident"), .href(DeskURL.order(id))], text: id)
    }

    private static func orderLinks(_ w: inout HTMLWriter, _ ids: [String]) {
        guard !ids.isEmpty else {
            w.element("span", [.class("none")], text: "—")
            return
        }
        w.element("ul", [.class("inline-list")]) { w in
            for id in ids { w.element("li") { w in orderLink(&w, id) } }
        }
    }

    static func table(
        _ w: inout HTMLWriter, _ headings: [String], id: String? = nil, _ rows: (inout HTMLWriter) -> Void
    ) {
        w.element("table", [.class("list")] + (id.map { [.id($0)] } ?? [])) { w in
            w.element("thead") { w in
                w.element("tr") { w in
                    for h in headings { w.element("th", [.attr("scope", "col")], text: h) }
                }
            }
            w.element("tbody", [], rows)
        }
    }
}
