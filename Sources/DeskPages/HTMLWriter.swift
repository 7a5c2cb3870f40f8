import IAPBasics

/// The one place the desk's HTML is written. Tag and attribute names are `StaticString`s
/// (only the code names them); every text and attribute value goes through
/// `HTMLEscaping.escape`, and a URL attribute takes only a `DeskURL`, whose parts are
/// percent-encoded. A page cannot forget to escape: it has no way to write a data string
/// unescaped.
struct HTMLWriter {
    private(set) var html = ""

    init() {
        html.reserveCapacity(16 * 1024)
    }

    /// Markup the code wrote itself (the doctype).
    mutating func markup(_ literal: StaticString) {
        html += literal.description
    }

    mutating func text(_ s: String) {
        html += HTMLEscaping.escape(s)
    }

    /// `<tag attributes>…</tag>` with what `body` writes inside.
    mutating func element(
        _ tag: StaticString, _ attributes: [HTMLAttribute] = [], _ body: (inout HTMLWriter) -> Void
    ) {
        open(tag, attributes)
        body(&self)
        html += "</\(tag)>"
    }

    /// `<tag attributes>text</tag>`.
    mutating func element(_ tag: StaticString, _ attributes: [HTMLAttribute] = [], text value: String) {
        open(tag, attributes)
        text(value)
        html += "</\(tag)>"
    }

    /// A void element (`input`, `meta`, `link`, `br`): no content, no end tag.
    mutating func void(_ tag: StaticString, _ attributes: [HTMLAttribute]) {
        open(tag, attributes)
    }

    private mutating func open(_ tag: StaticString, _ attributes: [HTMLAttribute]) {
        html += "<\(tag)"
        for a in attributes {
            html += " \(a.name)"
            if let value = a.value { html += "=\"\(HTMLEscaping.escape(value))\"" }
        }
        html += ">"
    }
}

/// An attribute as the writer accepts it. The name is the code's; a URL-valued attribute
/// is made only from a `DeskURL`; event handlers and `style` cannot be named (the CSP would
/// refuse them, and data must never reach them).
struct HTMLAttribute {
    let name: StaticString
    /// nil: a boolean attribute (`autofocus`, `checked`).
    let value: String?

    private init(name: StaticString, value: String?) {
        self.name = name
        self.value = value
    }

    /// A plain attribute whose value is text (`id`, `name`, `value`, `type`, `data-…`).
    static func attr(_ name: StaticString, _ value: String) -> HTMLAttribute {
        precondition(isPlain(name), "\(name) is not a plain attribute")
        return HTMLAttribute(name: name, value: value)
    }

    static func flag(_ name: StaticString) -> HTMLAttribute {
        precondition(isPlain(name), "\(name) is not a plain attribute")
        return HTMLAttribute(name: name, value: nil)
    }

    static func id(_ value: String) -> HTMLAttribute { attr("id", value) }
    static func `class`(_ value: String) -> HTMLAttribute { attr("class", value) }
    static func href(_ url: DeskURL) -> HTMLAttribute { HTMLAttribute(name: "href", value: url.text) }
    static func action(_ url: DeskURL) -> HTMLAttribute { HTMLAttribute(name: "action", value: url.text) }
    static func src(_ url: DeskURL) -> HTMLAttribute { HTMLAttribute(name: "src", value: url.text) }

    private static let urlNames: Set<String> = [
        "href", "src", "action", "formaction", "srcset", "xlink:href", "poster",
    ]

    /// Not a URL attribute, not a handler, not `style`.
    private static func isPlain(_ name: StaticString) -> Bool {
        let n = name.description.lowercased()
        return !n.hasPrefix("on") && n != "style" && !urlNames.contains(n)
    }
}
