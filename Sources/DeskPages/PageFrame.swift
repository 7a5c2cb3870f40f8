import Ledger

/// What every page shares: the document head (the desk's one style sheet and one script,
/// nothing inline, as the CSP demands), the bar with who is signed in and where to go, and
/// the message a page was sent back with.
enum PageFrame {
    /// Which link of the bar is the current page.
    enum Section {
        case queue, order, audit, none
    }

    static func render(
        title: String, context: DeskPageContext?, section: Section, message: String? = nil,
        _ body: (inout HTMLWriter) -> Void
    ) -> String {
        var w = HTMLWriter()
        w.markup("<!doctype html>")
        w.element("html", [.attr("lang", "en")]) { w in
            w.element("head") { w in
                w.void("meta", [.attr("charset", "utf-8")])
                w.void("meta", [.attr("name", "viewport"), .attr("content", "width=device-width, initial-scale=1")])
                w.element("title", text: title + " — iapscreen desk")
                w.void("link", [.attr("rel", "stylesheet"), .href(DeskURL.asset("desk.css"))])
                w.element("script", [.src(DeskURL.asset("desk.js")), .flag("defer")]) { _ in }
            }
            w.element("body", [.class("page-" + name(of: section))]) { w in
                if let context { bar(&w, context, section) }
                w.element("main", [.id("main")]) { w in
                    if let message, !message.isEmpty {
                        w.element("p", [.id("message"), .class("message"), .attr("role", "alert")], text: message)
                    }
                    body(&w)
                }
            }
        }
        return w.html
    }

    private static func bar(_ w: inout HTMLWriter, _ context: DeskPageContext, _ section: Section) {
        w.element("header", [.id("bar"), .class("bar")]) { w in
            w.element("a", [.class("brand"), .href(DeskURL("/queue"))], text: "iapscreen desk")
            w.element("nav", [.class("sections")]) { w in
                link(&w, "Queue", DeskURL("/queue"), id: "queue-link", current: section == .queue)
                if context.role >= .lead {
                    link(&w, "Audit", DeskURL("/audit"), id: "audit-link", current: section == .audit)
                }
            }
            w.element("div", [.class("who")]) { w in
                w.element("span", [.id("user"), .class("user")], text: context.user)
                w.element(
                    "span", [.id("role"), .class("role role-" + context.role.rawValue)], text: context.role.rawValue)
                w.postForm(DeskURL("/logout"), csrf: context.csrf, [.id("logout-form"), .class("inline")]) { w in
                    w.button("Log out", [.class("link")])
                }
            }
        }
    }

    private static func link(_ w: inout HTMLWriter, _ label: String, _ url: DeskURL, id: String, current: Bool) {
        var attributes: [HTMLAttribute] = [.id(id), .href(url)]
        if current { attributes.append(.attr("aria-current", "page")) }
        w.element("a", attributes, text: label)
    }

    private static func name(of section: Section) -> String {
        switch section {
        case .queue: "queue"
        case .order: "order"
        case .audit: "audit"
        case .none: "plain"
        }
    }
}
