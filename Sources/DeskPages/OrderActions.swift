import Ledger

/// The order page's decisions: its claim, its verdict and its notes, each with the form the
/// reader's role may use (a viewer gets none). Every form posts under `/orders/{id}/`.
enum OrderActions {
    static func claim(_ w: inout HTMLWriter, _ d: OrderDossier, _ context: DeskPageContext) {
        let id = d.order.flagged.orderID
        let holder = d.order.claimedBy
        let mine = holder == context.user
        w.element("section", [.id("claim"), .class("panel claim" + (holder == nil ? "" : mine ? " mine" : " held"))]) {
            w in
            w.element("h2", text: "Claim")
            w.element("p", [.id("claim-state")]) { w in
                guard let holder else {
                    w.text("No one is working on this order.")
                    return
                }
                w.text(mine ? "You hold it" : "Claimed by ")
                if !mine { w.element("strong", [.class("holder")], text: holder) }
                if let until = d.order.claimedUntil {
                    w.text(" until ")
                    w.claimEnd(until, now: context.now)
                }
                w.text(".")
            }
            guard context.role >= .reviewer else { return }
            w.element("div", [.class("buttons")]) { w in
                if holder == nil || mine {
                    w.postForm(DeskURL.order(id, "claim"), csrf: context.csrf, [.id("claim-form"), .class("inline")]) {
                        w in w.button(mine ? "Extend my claim" : "Claim")
                    }
                }
                if holder != nil && (mine || context.role >= .lead) {
                    w.postForm(
                        DeskURL.order(id, "release"), csrf: context.csrf, [.id("release-form"), .class("inline")]
                    ) { w in w.button(mine ? "Release" : "Release their claim") }
                }
                if context.role >= .reviewer { DeskPages.nextForm(&w, context) }
            }
        }
    }

    static func verdict(_ w: inout HTMLWriter, _ d: OrderDossier, _ context: DeskPageContext) {
        let id = d.order.flagged.orderID
        w.element("section", [.id("verdict"), .class("panel verdict")]) { w in
            w.element("h2", text: "Verdict")
            if let v = d.verdict {
                w.element("p", [.id("verdict-state")]) { w in
                    w.element("span", [.class("tag verdict-" + QueueTable.verdictClass(v.verdict))], text: v.verdict)
                    w.text(" by ")
                    w.element("strong", text: v.by)
                    w.text(" at ")
                    w.time(v.at)
                }
                if let note = v.note, !note.isEmpty { w.element("p", [.class("note-text")], text: note) }
            } else {
                w.element("p", [.id("verdict-state"), .class("quiet")], text: "No verdict yet.")
            }
            guard context.role >= .reviewer else { return }
            if let holder = d.order.claimedBy, holder != context.user {
                w.element(
                    "p", [.class("warning")],
                    text: "Claimed by \(holder): a verdict is refused until they release it or the claim lapses.")
            }
            w.postForm(DeskURL.order(id, "verdict"), csrf: context.csrf, [.id("verdict-form")]) { w in
                w.hidden("version", String(d.version))
                w.element("fieldset", [.class("choices")]) { w in
                    w.element("legend", text: d.verdict == nil ? "Decide" : "Change the verdict")
                    choice(&w, "fraud", "Fraud", key: "f", checked: d.verdict?.verdict == "fraud")
                    choice(&w, "legit", "Legit", key: "l", checked: d.verdict?.verdict == "legit")
                }
                w.labelled("Reason", for: "verdict-note") { w in
                    w.element(
                        "textarea",
                        [.attr("name", "note"), .id("verdict-note"), .attr("rows", "2")],
                        text: "")
                }
                w.button("Record verdict", [.class("primary")])
            }
        }
    }

    private static func choice(_ w: inout HTMLWriter, _ value: String, _ label: String, key: String, checked: Bool) {
        w.element("label", [.class("choice choice-" + value), .attr("for", "verdict-" + value)]) { w in
            var attributes: [HTMLAttribute] = [
                .attr("type", "radio"), .attr("name", "verdict"), .attr("value", value), .id("verdict-" + value),
                .flag("required"),
            ]
            if checked { attributes.append(.flag("checked")) }
            w.void("input", attributes)
            w.text(" " + label + " ")
            w.key(key)
        }
    }

    static func notes(_ w: inout HTMLWriter, _ d: OrderDossier, _ context: DeskPageContext) {
        let id = d.order.flagged.orderID
        w.element("section", [.id("notes"), .class("panel notes")]) { w in
            w.element("h2", text: d.notes.isEmpty ? "Notes" : "Notes (\(d.notes.count))")
            if d.notes.isEmpty { w.element("p", [.class("quiet")], text: "No notes yet.") }
            w.element("ol", [.class("note-list")]) { w in
                for note in d.notes {
                    w.element("li", [.class("note")]) { w in
                        w.element("div", [.class("note-head")]) { w in
                            w.element("strong", text: note.by)
                            w.text(" ")
                            w.time(note.at)
                        }
                        // Line breaks are kept by desk.css (white-space: pre-wrap), never by markup.
                        w.element("p", [.class("note-text")], text: note.text)
                    }
                }
            }
            guard context.role >= .reviewer else { return }
            w.postForm(DeskURL.order(id, "notes"), csrf: context.csrf, [.id("note-form")]) { w in
                w.labelled("Comment", for: "note-text") { w in
                    w.element(
                        "textarea",
                        [
                            .attr("name", "text"), .id("note-text"), .attr("rows", "3"),
                            .flag("required"),
                        ], text: "")
                }
                w.button("Add note")
            }
        }
    }
}
