import IAPBasics
import Screening

/// report.html: one self-contained page for a security reviewer. The run, its totals and
/// charts are HTML written here; the orders are JSON data (`ReportData`) that the page's one
/// script (`ReportAssets.script`) turns into tables that sort, filter and page. Every string
/// that came from a dump or a receipt is escaped, and the Content-Security-Policy runs
/// nothing but that script and style sheet, named by their SHA-256.
///
/// The page is written in parts so the data can be copied from files it was streamed to:
/// `assemble` hands out text and, between them, the places of the three data arrays.
public enum ReportHTML {
    /// The base64 SHA-256 of `ReportAssets.script` and `.style`, for the CSP.
    public struct Hashes: Sendable {
        public var script: String
        public var style: String

        public init(script: String, style: String) {
            self.script = script
            self.style = style
        }
    }

    /// The three arrays of `ReportData` the page carries.
    public enum Section: Int, Sendable, CaseIterable {
        case rows, exempted, malformed
    }

    public enum Part {
        case text(String)
        /// The elements of a section's array, separated by commas (the brackets are in the text).
        case data(Section)
    }

    /// What the page counts as the reports go by, beside the charts.
    public struct Tally: Sendable {
        public var charts = ReportCharts()
        /// Rows of the table: flagged orders, orders reviewed legit, receipts without an order,
        /// store events not believed.
        public var listed = 0
        public var legit = 0
        public var receiptsOnly = 0
        public var eventsNotBelieved = 0
        public var exempted = 0
        public var malformed = 0

        public init() {}

        public mutating func add(_ r: OrderReport) {
            charts.add(r)
            if r.isListed {
                listed += 1
                switch r.subject {
                case .order: if !r.isFlagged { legit += 1 }
                case .receipt: receiptsOnly += 1
                case .event: eventsNotBelieved += 1
                }
            }
            for f in r.findings {
                if f.exempted != nil { exempted += 1 }
                if f.rule == MalformedRecord.id.rawValue { malformed += 1 }
            }
        }
    }

    /// The page in memory (tests, small runs): the same parts `assemble` gives a file writer.
    public static func render(
        summary: RunSummary, reports: [OrderReport], hashes: Hashes,
        legend: RuleLegend = RuleLegend()
    ) -> String {
        var tally = Tally()
        var strings = SharedStrings()
        var data: [Section: [[UInt8]]] = [:]
        for r in reports {
            tally.add(r)
            let lines = ReportLines(r)
            for (k, section) in lines.sections.enumerated() {
                var element: [UInt8] = []
                lines.writeElement(k, strings: &strings, to: &element)
                data[section, default: []].append(element)
            }
        }
        var out = ""
        assemble(summary: summary, tally: tally, strings: strings, hashes: hashes, legend: legend) { part in
            switch part {
            case .text(let t): out += t
            case .data(let s):
                out += (data[s] ?? []).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",\n")
            }
        }
        return out
    }

    public static func contentSecurityPolicy(_ h: Hashes) -> String {
        "default-src 'none'; script-src 'sha256-\(h.script)'; style-src 'sha256-\(h.style)'; img-src 'none'; "
            + "base-uri 'none'; form-action 'none'"
    }

    /// The page, part by part, in order.
    public static func assemble(
        summary s: RunSummary, tally: Tally, strings: SharedStrings, hashes: Hashes,
        legend: RuleLegend, emit: (Part) throws -> Void
    ) rethrows {
        try emit(
            .text(
                head(s, hashes) + totals(s) + "<section id=\"charts\"><h2>Charts</h2>"
                    + tally.charts.html(legend: legend)
                    + "</section>\n" + (s.storeEvents.map(storeEvents) ?? "")
                    + (s.consumptionRequests.map(refundRequests) ?? "")
                    + ordersSection(s, tally) + "<script type=\"application/json\" id=\"data-rows\">[\n"))
        try emit(.data(.rows))
        try emit(
            .text(
                "]</script>\n</section>\n"
                    + audit(
                        id: "exempted", title: "Reviewer-exempted findings", count: tally.exempted,
                        about:
                            "Findings on listed App Review accounts inside their window (Rules/reviewers.csv). They are kept for audit and "
                            + "do not count towards flagged orders, money at risk or --fail-on.")
                    + "<script type=\"application/json\" id=\"data-exempted\">[\n"))
        try emit(.data(.exempted))
        try emit(
            .text(
                "]</script>\n</section>\n"
                    + audit(
                        id: "malformed", title: "Malformed records", count: tally.malformed,
                        about: "Dump records that could not be read, with the file and line (or XML row) they stand at."
                    )
                    + "<script type=\"application/json\" id=\"data-malformed\">[\n"))
        try emit(.data(.malformed))
        try emit(
            .text(
                "]</script>\n</section>\n<script type=\"application/json\" id=\"data-strings\">"
                    + String(decoding: strings.json, as: UTF8.self)
                    + "</script>\n<footer class=\"note\">Written by iapscreen \(HTMLEscaping.escape(s.version)). "
                    + "The same findings are in findings.jsonl, flagged.csv and summary.json beside this page.</footer>\n"
                    + "<script>\(ReportAssets.script)</script>\n</body></html>\n"))
    }

    static func head(_ s: RunSummary, _ hashes: Hashes) -> String {
        let e = HTMLEscaping.escape
        let seconds = max(0, (s.finishedAt.millis - s.startedAt.millis) / 1000)
        let status: String
        switch s.exitStatus {
        case 0: status = "<span class=\"status-ok\">0 — done</span>"
        case 1: status = "<span class=\"status-fail\">1 — a finding at or above --fail-on</span>"
        default: status = "<span class=\"status-fail\">\(s.exitStatus)</span>"
        }
        var out =
            documentStart(title: "iapscreen report " + s.startedAt.iso8601, style: ReportAssets.style, hashes: hashes)
                + """
                <header id="run"><h1>iapscreen report</h1>
                <dl class="run">
                <dt>Run</dt><dd>\(e(s.startedAt.iso8601)) to \(e(s.finishedAt.iso8601)) (\(seconds) s)</dd>
                <dt>Exit status</dt><dd id="exit-status">\(status)</dd>
                <dt>Version</dt><dd>iapscreen \(e(s.version))</dd>
                <dt>Rules digest</dt><dd><code>\(e(s.rulesSHA256))</code> (SHA-256 of the Rules directory)</dd>
                </dl>
                <table id="inputs"><thead><tr><th>input</th><th class="n">records</th><th>SHA-256</th></tr></thead><tbody>

                """
        for i in s.inputs {
            out +=
                "<tr><td class=\"mono\">\(e(i.path))</td><td class=\"n\">\(i.records)</td><td><code>\(e(i.sha256))</code></td></tr>\n"
        }
        return out + "</tbody></table></header>\n"
    }

    /// Everything up to `<body>`: the CSP, the title (escaped here) and the page's one style sheet.
    static func documentStart(title: String, style: String, hashes: Hashes) -> String {
        let e = HTMLEscaping.escape
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(e(contentSecurityPolicy(hashes)))">
            <meta name="referrer" content="no-referrer">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(e(title))</title>
            <style>\(style)</style>
            </head><body>

            """
    }

    /// A totals card; `alert` marks it when its number is not zero. `label` is markup.
    static func card(id: String, _ n: Int, _ label: String, alert: Bool = false) -> String {
        "<div class=\"card\(alert && n > 0 ? " alert" : "")\" id=\"\(id)\"><b>\(grouped(n))</b><span>\(label)</span></div>"
    }

    static func totals(_ s: RunSummary) -> String {
        let e = HTMLEscaping.escape
        func card(_ id: String, _ n: Int, _ label: String, alert: Bool = false) -> String {
            Self.card(id: "total-" + id, n, label, alert: alert)
        }
        var out =
            "<section id=\"totals\"><h2>Totals</h2><div class=\"cards\">"
            + card("orders", s.orders, "orders") + card("receipts", s.receipts, "with a receipt")
            + card("flagged", s.flagged, "flagged orders", alert: true)
            + card("new", s.new, "new findings", alert: true)
            + card("exempted", s.exempted, "exempted findings") + card("malformed", s.malformed, "malformed records")
            + "</div>\n<h3>Money at risk</h3>"
        if s.atRisk.isEmpty {
            out += "<p id=\"at-risk\" class=\"note\">None: no flagged order carries an amount.</p>"
        } else {
            out += "<table id=\"at-risk\"><thead><tr><th>currency</th><th class=\"n\">at risk</th></tr></thead><tbody>"
            for (currency, amount) in s.atRisk {
                out += "<tr><td>\(e(currency))</td><td class=\"n\">\(e(amount.text(in: currency)))</td></tr>"
            }
            out += "</tbody></table>"
        }
        if !s.bySeverity.isEmpty {
            out +=
                "<p id=\"by-severity\">\(grouped(s.findings)) findings that count (neither exempted nor reviewed legit): "
                + s.bySeverity.map { "<span class=\"sev-\(e($0.0))\">\(e($0.0))</span> \($0.1)" }.joined(
                    separator: ", ")
                + (s.findingsWithoutOrder > 0 ? "; \(grouped(s.findingsWithoutOrder)) of them on no order" : "")
                + "</p>"
        }
        return out + "</section>\n"
    }

    /// What `--store-events` read: the events by type, what came of them, refunds per day.
    static func storeEvents(_ f: StoreEventFigures) -> String {
        let e = HTMLEscaping.escape
        var out =
            "<section id=\"store-events\"><h2>Store events</h2><p>\(grouped(f.read)) read, \(grouped(f.distinct)) distinct; "
            + "\(grouped(f.refunds)) refund\(f.refunds == 1 ? "" : "s") and \(grouped(f.reversals)) reversal\(f.reversals == 1 ? "" : "s"), \(grouped(f.matched)) of them matched to an order "
            + "and \(grouped(f.unmatched)) unmatched; \(grouped(f.invalid)) not believed (store-event-invalid). The refund findings "
            + "(refunded-after-credit, revoked, refund-reversed) are in the table of flagged orders with their evidence.</p>"
            + "<div class=\"charts\"><figure class=\"chart-box\" id=\"events-by-type\"><figcaption>Distinct events by type</figcaption>"
        if f.byType.isEmpty {
            out += "<p class=\"empty\">No events.</p>"
        } else {
            out += "<table class=\"numbers\"><thead><tr><th>type</th><th>events</th></tr></thead><tbody>"
            for (type, n) in f.byType { out += "<tr><td>\(e(type))</td><td class=\"n\">\(grouped(n))</td></tr>" }
            out += "</tbody></table>"
        }
        out +=
            "</figure>"
            + ReportCharts.perDayChart(
                f.refundsPerDay, id: "chart-refunds", caption: "Refunds per day (UTC, by refund time)",
                title: "Refunds per day", what: "refunds", counted: "refunds",
                empty: "No refunds.")
        return out + "</div></section>\n"
    }

    /// 87757 as 87,757.
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func ordersSection(_ s: RunSummary, _ t: Tally) -> String {
        var also: [String] = []
        if t.legit > 0 {
            also.append(
                t.legit == 1
                    ? "1 order reviewed legit (shown, not counted)"
                    : "\(grouped(t.legit)) orders reviewed legit (shown, not counted)")
        }
        if t.receiptsOnly > 0 {
            also.append(
                t.receiptsOnly == 1
                    ? "1 receipt whose order is not in the dump"
                    : "\(grouped(t.receiptsOnly)) receipts whose order is not in the dump")
        }
        if t.eventsNotBelieved > 0 {
            also.append(
                t.eventsNotBelieved == 1
                    ? "1 store event not believed (it flags no order)"
                    : "\(grouped(t.eventsNotBelieved)) store events not believed (they flag no order)")
        }
        let about =
            (s.flagged == 1 ? "1 flagged order" : "\(grouped(s.flagged)) flagged orders")
            + (also.isEmpty ? "" : "; the table also lists " + commaList(also))
        let filters = [
            ("f-rule", "Rule", "any rule"), ("f-sev", "Severity", "any"), ("f-platform", "Platform", "any"),
            ("f-status", "Status", "any"),
        ]
        return """
            <section id="orders"><h2>Flagged orders (\(grouped(s.flagged)))</h2>
            <p>\(about). Open a row (▸) for its evidence: expected against actual, the receipt, and for a replay the order it replays.
            Status: <b>new</b> tonight, <b>seen</b> by an earlier run, or the reviewer's verdict (<code>iapscreen review</code>).</p>
            <p class="printonly" id="print-view"></p>

            """
                + gridControls(
                    filters, search: "order, user, product, transaction…", grid: "rows",
                    noscript: "The tables need JavaScript; the same orders are in flagged.csv and findings.jsonl.")
    }

    /// "a", "a and b", "a, b and c".
    static func commaList(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.joined() }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// A grid's filters (select id, label, what "no filter" says), search box and Clear button,
    /// then its view line, table and pager, for the page's script to fill.
    static func gridControls(_ filters: [(String, String, String)], search: String, grid: String, noscript: String)
        -> String
    {
        "<div class=\"controls\">"
            + filters.map {
                "<label>\($0.1) <select id=\"\($0.0)\"><option value=\"\">\($0.2)</option></select></label>"
            }.joined()
                + """
                <label>Search <input type="search" id="f-q" placeholder="\(search)"></label>
                <button type="button" id="f-clear">Clear</button></div>
                <p class="view" id="v-\(grid)"></p>
                <table class="grid" id="t-\(grid)"><thead></thead><tbody></tbody></table>
                <div class="pager" id="p-\(grid)"></div>
                <noscript><p>\(noscript)</p></noscript>

                """
    }

    static func audit(id: String, title: String, count: Int, about: String) -> String {
        """
        <section id="\(id)"><h2>\(title) (\(grouped(count)))</h2><p class="note">\(about)</p>
        <div class="controls"><label>Search <input type="search" id="q-\(id)"></label></div>
        <p class="view" id="v-\(id)"></p>
        <table class="grid" id="t-\(id)"><thead></thead><tbody></tbody></table>
        <div class="pager" id="p-\(id)"></div>

        """
    }
}
