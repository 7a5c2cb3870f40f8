import Ledger

extension DeskPages {
    /// `GET /queue`: the filters as they stand, the counts, "next", the orders, the way on.
    public static func queue(
        _ page: QueuePage, filter: QueueFilter, context: DeskPageContext, message: String?
    ) -> String {
        PageFrame.render(title: "Queue", context: context, section: .queue, message: message) { w in
            w.element("div", [.class("toolbar")]) { w in
                QueueFilterForm.write(&w, filter, context: context)
                if context.role >= .reviewer { nextForm(&w, context) }
            }
            w.element("p", [.id("counts"), .class("counts")]) { w in
                w.element("strong", text: page.total == 1 ? "1 order" : "\(page.total) orders")
                w.text(" · showing \(page.orders.count)")
                if filter.after != nil { w.text(" (a later page)") }
            }
            if page.orders.isEmpty {
                w.element("p", [.id("empty"), .class("empty")], text: "No order matches these filters.")
            } else {
                QueueTable.write(&w, page.orders, context: context)
            }
            if let next = page.next {
                w.element("nav", [.class("pager")]) { w in
                    let url = QueueFilterForm.url(filter, after: next.cursor)
                    w.element("a", [.id("more"), .class("more"), .href(url)], text: "More orders →")
                }
            }
            w.element("p", [.id("shortcuts"), .class("keys")]) { w in
                w.text("Keys: ")
                w.key("j")
                w.text(" / ")
                w.key("k")
                w.text(" move · ")
                w.key("o")
                w.text(" or ")
                w.key("Enter")
                w.text(" open · ")
                if context.role >= .reviewer {
                    w.key("n")
                    w.text(" claim the next open order · ")
                }
                w.key("/")
                w.text(" search")
            }
        }
    }

    /// "Next": claims the top open order (reviewers and leads). The order page has one too.
    static func nextForm(_ w: inout HTMLWriter, _ context: DeskPageContext) {
        w.postForm(DeskURL("/queue/next"), csrf: context.csrf, [.id("next-form"), .class("inline next")]) { w in
            w.element("button", [.attr("type", "submit"), .class("primary")]) { w in
                w.text("Next open order ")
                w.key("n")
            }
        }
    }
}
