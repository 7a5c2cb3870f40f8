import Ledger

extension DeskPages {
    /// `GET /orders/{id}`: everything the API gives of the order, the evidence readable, and
    /// the forms a role may use. The decision controls sit beside the evidence.
    public static func order(_ d: OrderDossier, context: DeskPageContext, message: String?) -> String {
        let id = d.order.flagged.orderID
        return PageFrame.render(title: "Order " + id, context: context, section: .order, message: message) { w in
            OrderSummary.write(&w, d)
            w.element("div", [.class("columns")]) { w in
                w.element("div", [.class("evidence-col")]) { w in
                    FindingView.section(&w, d.findings)
                    ReceiptView.section(&w, d.receipt)
                    OrderFacts.transactions(&w, d.transactions)
                    OrderFacts.storeEvents(&w, d.storeEvents)
                    OrderFacts.history(&w, d.history)
                }
                w.element("aside", [.class("decision-col")]) { w in
                    OrderActions.claim(&w, d, context)
                    OrderActions.verdict(&w, d, context)
                    OrderActions.notes(&w, d, context)
                    OrderFacts.user(&w, d.user, current: id)
                }
            }
            shortcuts(&w, context)
        }
    }

    private static func shortcuts(_ w: inout HTMLWriter, _ context: DeskPageContext) {
        w.element("p", [.id("shortcuts"), .class("keys")]) { w in
            w.text("Keys: ")
            if context.role >= .reviewer {
                w.key("f")
                w.text(" fraud · ")
                w.key("l")
                w.text(" legit · ")
                w.key("v")
                w.text(" verdict note · ")
                w.key("c")
                w.text(" comment · ")
                w.key("n")
                w.text(" claim the next open order · ")
            }
            w.key("u")
            w.text(" back to the queue · ")
            w.key("Esc")
            w.text(" leave a text box · ")
            w.key("Ctrl")
            w.text("+")
            w.key("Enter")
            w.text(" send it")
        }
    }
}
