import JSONText

/// The receipt's key fields as the latest run decoded them: a JSON array of `[name, value]`
/// pairs, shown as a table in their order. Anything else is shown as its text.
enum ReceiptView {
    static func section(_ w: inout HTMLWriter, _ receipt: String?) {
        w.element("section", [.id("receipt"), .class("block")]) { w in
            w.element("h2", text: "Receipt")
            guard let receipt else {
                w.element("p", [.class("quiet")], text: "No receipt that decoded.")
                return
            }
            guard let pairs = (try? JSONParser.parse(receipt))?.array else {
                w.element("pre", [.class("raw")], text: receipt)
                return
            }
            w.element("table", [.class("kv receipt")]) { w in
                for pair in pairs { row(&w, pair) }
            }
        }
    }

    private static func row(_ w: inout HTMLWriter, _ pair: JSONValue) {
        w.element("tr") { w in
            guard let items = pair.array, items.count == 2, let name = items.first?.scalarText, let value = items.last
            else {
                w.element("td", [.attr("colspan", "2")]) { w in JSONView.value(&w, pair, depth: JSONView.maxDepth) }
                return
            }
            w.element("th", [.attr("scope", "row"), .class("key")], text: name)
            w.element("td") { w in JSONView.value(&w, value, depth: 1) }
        }
    }
}
