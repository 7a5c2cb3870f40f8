import IAPBasics
import Screening

/// report.html: one self-contained page for a security reviewer. Every string that came
/// from a dump or a receipt is escaped; the page loads nothing and runs no script.
public enum ReportHTML {
    public static func render(summary: RunSummary, flagged: [OrderReport], exempted: [Finding], malformed: [Finding]) -> String {
        head(summary: summary, flaggedCount: flagged.count) + flagged.map(flaggedRow).joined() + tail(exempted: exempted, malformed: malformed)
    }

    /// Everything before the flagged orders' rows.
    public static func head(summary: RunSummary, flaggedCount: Int) -> String {
        let e = HTMLText.escape
        var out = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <title>iapscreen report \(e(summary.startedAt.iso8601))</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
        table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}
        th{background:#f3f3f3}.critical{color:#a00;font-weight:bold}.high{color:#c40}.medium{color:#a80}
        code{font-size:12px}
        </style></head><body>
        <h1>iapscreen report</h1>
        <p>Run \(e(summary.startedAt.iso8601)) – \(e(summary.finishedAt.iso8601)), version \(e(summary.version)),
        exit status \(summary.exitStatus), Rules digest <code>\(e(summary.rulesSHA256))</code>.</p>
        <table><tr><th>orders</th><th>receipts</th><th>flagged</th><th>new</th><th>exempted</th><th>malformed</th></tr>
        <tr><td>\(summary.orders)</td><td>\(summary.receipts)</td><td>\(summary.flagged)</td><td>\(summary.new)</td><td>\(summary.exempted)</td><td>\(summary.malformed)</td></tr></table>
        <h2>Money at risk</h2><table><tr><th>currency</th><th>amount</th></tr>
        """
        for (currency, amount) in summary.atRisk { out += "<tr><td>\(e(currency))</td><td>\(e(amount.description))</td></tr>" }
        out += "</table>\n<h2>Inputs</h2><table><tr><th>file</th><th>records</th><th>SHA-256</th></tr>"
        for i in summary.inputs { out += "<tr><td>\(e(i.path))</td><td>\(i.records)</td><td><code>\(e(i.sha256))</code></td></tr>" }
        out += "</table>\n<h2>Findings by rule</h2><table><tr><th>rule</th><th>findings</th></tr>"
        for (rule, n) in summary.byRule { out += "<tr><td>\(e(rule))</td><td>\(n)</td></tr>" }
        out += "</table>\n<h2>Flagged orders (\(flaggedCount))</h2>\n<table><tr><th>order</th><th>user</th><th>product</th><th>amount</th><th>severity</th><th>findings</th></tr>\n"
        return out
    }

    /// One flagged order's row.
    public static func flaggedRow(_ r: OrderReport) -> String {
        let e = HTMLText.escape
        let sev = r.highestSeverity?.name ?? ""
        return "<tr><td>\(e(r.orderID ?? ""))</td><td>\(e(r.userID ?? ""))</td><td>\(e(r.productID ?? ""))</td>"
            + "<td>\(e(r.amount ?? "")) \(e(r.currency ?? ""))</td><td class=\"\(e(sev))\">\(e(sev))</td><td>"
            + r.findings.filter(\.counts).map(findingLine).joined(separator: "<br>") + "</td></tr>\n"
    }

    /// The audit sections and the end of the page.
    public static func tail(exempted: [Finding], malformed: [Finding]) -> String {
        let e = HTMLText.escape
        var out = "</table>\n<h2>Reviewer-exempted findings (\(exempted.count))</h2>\n<table><tr><th>order</th><th>user</th><th>finding</th></tr>\n"
        for f in exempted {
            out += "<tr><td>\(e(f.orderID ?? ""))</td><td>\(e(f.userID ?? ""))</td><td>\(findingLine(f))</td></tr>\n"
        }
        out += "</table>\n<h2>Malformed records (\(malformed.count))</h2>\n<table><tr><th>where</th><th>why</th></tr>\n"
        for f in malformed {
            let place = f.evidence.extra.map { "\($0.key)=\($0.value.scalarText ?? "")" }.joined(separator: " ")
            out += "<tr><td>\(e(place))</td><td>\(e(f.message))</td></tr>\n"
        }
        out += "</table>\n</body></html>\n"
        return out
    }

    static func findingLine(_ f: Finding) -> String {
        let e = HTMLText.escape
        var s = "<b>\(e(f.rule))</b> (\(e(f.severity.name))): \(e(f.message))"
        if f.evidence.expected != nil || f.evidence.actual != nil {
            s += " — expected <code>\(e(f.evidence.expected ?? "null"))</code>, actual <code>\(e(f.evidence.actual ?? "null"))</code>"
        }
        return s
    }
}
