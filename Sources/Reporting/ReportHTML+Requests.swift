/// report.html's refund requests (docs/consumption.md): how many were read and answered, and
/// each one still open with its deadline and the answer consumption.jsonl gives.
extension ReportHTML {
    /// Rows shown at most; the rest are in consumption.jsonl, as the page says.
    static let openRequestRows = 2_000

    static func refundRequests(_ r: RequestFigures) -> String {
        let e = HTMLText.escape
        func n(_ state: String) -> String { grouped(r.count(state)) }
        var out =
            "<section id=\"refund-requests\"><h2>Refund requests</h2><p>\(n("read")) refund request\(r.count("read") == 1 ? "" : "s") "
            + "read (CONSUMPTION_REQUEST): \(n("answered")) answered, \(n("no_consent")) without the user's consent "
            + "(listed, no body), \(n("late")) past their 12-hour deadline (not listed), \(n("invalid")) not believed "
            + "(never answered). Preferences asked: \(n("decline")) decline, \(n("grant_full")) grant in full, "
            + "\(n("grant_prorated")) grant prorated, \(n("no_preference")) none. Each answer's reasons, field by "
            + "field, are in consumption.jsonl.</p>"
        guard !r.open.isEmpty else { return out + "<p class=\"empty\">No request is open.</p></section>\n" }
        out +=
            "<table class=\"numbers\" id=\"open-requests\"><thead><tr><th>answer by</th><th>transaction</th>"
            + "<th>product</th><th>order</th><th>user</th><th>reason</th><th>status</th><th>delivery</th>"
            + "<th>consumed</th><th>preference</th></tr></thead><tbody>"
        for q in r.open.prefix(openRequestRows) {
            let consumed = q.consumptionPercentage.map { percent($0) } ?? ""
            let cells = [
                q.answerBy.iso8601, q.transactionID, q.productID ?? "", q.orderID ?? "", q.userID ?? "", q.reason ?? "",
                q.status, q.deliveryStatus ?? "", consumed, q.refundPreference ?? "",
            ]
            out += "<tr>" + cells.map { "<td>\(e($0))</td>" }.joined() + "</tr>"
        }
        out += "</tbody></table>"
        if r.open.count > openRequestRows {
            out +=
                "<p>The first \(grouped(openRequestRows)) of \(grouped(r.open.count)) open requests; the rest are in "
                + "consumption.jsonl.</p>"
        }
        return out + "</section>\n"
    }

    /// Milliunits as a percentage: 45500 as 45.5 %.
    static func percent(_ milliunits: Int32) -> String {
        let whole = milliunits / 1000
        let tenths = (milliunits % 1000) / 100
        return tenths == 0 ? "\(whole) %" : "\(whole).\(tenths) %"
    }
}
