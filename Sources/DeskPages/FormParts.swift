/// The pieces forms are made of, so every POST carries the CSRF token without a page
/// having to remember it.
extension HTMLWriter {
    /// A POST form to `action` with the session's CSRF token as its first field.
    mutating func postForm(
        _ action: DeskURL, csrf: String, _ attributes: [HTMLAttribute] = [], _ body: (inout HTMLWriter) -> Void
    ) {
        element("form", [.attr("method", "post"), .action(action)] + attributes) { w in
            w.hidden("csrf", csrf)
            body(&w)
        }
    }

    mutating func hidden(_ name: String, _ value: String) {
        void("input", [.attr("type", "hidden"), .attr("name", name), .attr("value", value)])
    }

    /// A labelled control: the label's text above the control `control` writes.
    mutating func labelled(_ label: String, for id: String, _ control: (inout HTMLWriter) -> Void) {
        element("label", [.attr("for", id), .class("field")]) { w in
            w.element("span", [.class("field-name")], text: label)
            control(&w)
        }
    }

    /// A `<select>` whose option with `selected`'s value is chosen; options are (value, label).
    mutating func select(name: String, id: String, options: [(String, String)], selected: String) {
        element("select", [.attr("name", name), .id(id)]) { w in
            for (value, label) in options {
                var attributes: [HTMLAttribute] = [.attr("value", value)]
                if value == selected { attributes.append(.flag("selected")) }
                w.element("option", attributes, text: label)
            }
        }
    }

    mutating func button(_ label: String, _ attributes: [HTMLAttribute] = []) {
        element("button", [.attr("type", "submit")] + attributes, text: label)
    }

    /// A key of a shortcut, as people read it.
    mutating func key(_ k: String) {
        element("kbd", text: k)
    }
}
