import IAPBasics

/// report.html's refund requests (docs/consumption.md): how many were read and answered, and
/// each one still open with its deadline and the answer consumption.jsonl gives.
extension ReportHTML {
    /// Rows shown at most; the rest are in consumption.jsonl, as the page says.
    static let openRequestRows = 2_000

    static func refundRequests(_ r: RequestFigures) -> String {
        let e = HTMLEscaping.escape
        func n(_ state: String) -> String { grouped(r.count(state)) }
        var out =
            "<section id=\"refund-requests\"><h2>Refund requests</h2><p>\(n("read")) refund request\(r.count("read") == 1 ? "" : "s") "
            + "read (CONSUMPTION_REQUEST): \(n("answered")) answered, \(n("no_consent")) without the user's consent "
            + "(listed, no body), \(n("late")) past their 12-hour deadline (not listed), \(n("invalid")) not believed "
            + "(never answered). Preferences asked: \(n("decline")) decline, \(n("grant_full")) grant in full, "
            + "\(n("grant_prorated")) grant prorated, \(n("no_preference")) none. Each answer's reasons, field by "
            + "field, are in consumption.jsonl.</p>"
        guard !r.open.isEmpty else { return out + "<p class=\"empty\">No request is open.</p></section>\n" }
        // Ten columns in 1,280 px: ids, the deadline and the figures stay whole on one line (a
        // transaction or order split in two misreads); Apple's codes and product ids, the long
        // values, wrap between their words (after `_` and `.`), never inside one. At their
        // narrowest the samples' columns need about 1,100 px of the 1,209 the page has at 1,280.
        // A value longer than any store writes (a hostile dump) widens its column and the table
        // scrolls in its own box: the page never grows wider than the window, cutting the last
        // columns off.
        out +=
            "<div class=\"wide\"><table class=\"requests\" id=\"open-requests\"><thead><tr><th>answer by</th>"
            + "<th>transaction</th><th>product</th><th>order</th><th>user</th><th>reason</th><th>status</th>"
            + "<th>delivery</th><th class=\"n\">consumed</th><th>preference</th></tr></thead><tbody>"
        for q in r.open.prefix(openRequestRows) {
            let consumed = q.consumptionPercentage.map { percent($0) } ?? ""
            let cells = [
                ("", e(q.answerBy.iso8601)), ("mono", e(q.transactionID)), ("words", wrappable(q.productID)),
                ("mono", e(q.orderID ?? "")), ("", e(q.userID ?? "")), ("words", wrappable(q.reason)),
                ("", e(q.status)), ("words", wrappable(q.deliveryStatus)), ("n", e(consumed)),
                ("words", wrappable(q.refundPreference)),
            ]
            out +=
                "<tr>" + cells.map { $0.0.isEmpty ? "<td>\($0.1)</td>" : "<td class=\"\($0.0)\">\($0.1)</td>" }.joined()
                + "</tr>"
        }
        out += "</tbody></table></div>"
        if r.open.count > openRequestRows {
            out +=
                "<p>The first \(grouped(openRequestRows)) of \(grouped(r.open.count)) open requests; the rest are in "
                + "consumption.jsonl.</p>"
        }
        return out + "</section>\n"
    }

    /// `s` escaped, with a place to wrap (`<wbr>`) after each `_` and `.`: `UNSATISFIED_WITH_PURCHASE`
    /// and `com.example.game.gems100` wrap between their words and read the same when copied.
    static func wrappable(_ s: String?) -> String {
        var out = ""
        var word = ""
        for c in s ?? "" {
            word.append(c)
            if c == "_" || c == "." {
                out += HTMLEscaping.escape(word) + "<wbr>"
                word = ""
            }
        }
        return out + HTMLEscaping.escape(word)
    }

    /// Milliunits as a percentage: 45500 as 45.5 %.
    static func percent(_ milliunits: Int32) -> String {
        let whole = milliunits / 1000
        let tenths = (milliunits % 1000) / 100
        return tenths == 0 ? "\(whole) %" : "\(whole).\(tenths) %"
    }
}
