import JSONText

/// A JSON value as people read it: an object as a key/value table, an array as a list, a
/// string as its text. Long single tokens (ids, hashes, tokens) may break anywhere; words
/// wrap as words. Past `maxDepth` a value is shown as its JSON text.
enum JSONView {
    static let maxDepth = 6
    /// A string without spaces at least this long is an identifier, allowed to wrap anywhere.
    static let tokenLength = 24

    static func table(_ w: inout HTMLWriter, _ o: JSONObject, class cls: String, depth: Int = 0) {
        w.element("table", [.class("kv " + cls)]) { w in
            for (key, value) in o.members {
                w.element("tr") { w in
                    w.element("th", [.attr("scope", "row"), .class("key")], text: key)
                    w.element("td") { w in JSONView.value(&w, value, depth: depth + 1) }
                }
            }
        }
    }

    static func value(_ w: inout HTMLWriter, _ v: JSONValue, depth: Int) {
        switch v {
        case .null:
            w.element("span", [.class("none")], text: "(none)")
        case .bool(let b):
            w.element("span", [.class("literal")], text: b ? "true" : "false")
        case .number(let n):
            w.element("span", [.class("num")], text: n)
        case .string(let s):
            string(&w, s)
        case .array(let items) where depth < maxDepth:
            guard !items.isEmpty else {
                w.element("span", [.class("none")], text: "(empty list)")
                return
            }
            w.element("ol", [.class("json-list")]) { w in
                for item in items { w.element("li") { w in JSONView.value(&w, item, depth: depth + 1) } }
            }
        case .object(let o) where depth < maxDepth:
            guard !o.members.isEmpty else {
                w.element("span", [.class("none")], text: "(empty)")
                return
            }
            table(&w, o, class: "nested", depth: depth)
        case .array, .object:
            w.element("code", [.class("token")], text: JSONWriter().string(v))
        }
    }

    static func string(_ w: inout HTMLWriter, _ s: String) {
        if s.isEmpty {
            w.element("span", [.class("none")], text: "(empty)")
        } else if isToken(s) {
            w.element("span", [.class("token")], text: s)
        } else {
            w.element("span", [.class("words")], text: s)
        }
    }

    /// One long run without white space: an id, a hash, a token, a base64 blob.
    static func isToken(_ s: String) -> Bool {
        s.utf8.count >= tokenLength && !s.unicodeScalars.contains { $0.properties.isWhitespace }
    }
}
