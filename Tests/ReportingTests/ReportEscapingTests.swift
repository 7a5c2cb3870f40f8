import IAPBasics
import JSONText
import Screening
import Testing

@testable import Reporting

@Suite("Reports escape what they print")
struct ReportEscapingTests {
    @Test("spreadsheet formulas are neutralised and CSV quoting is RFC 4180")
    func csv() {
        #expect(SpreadsheetCSV.cell("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"")
        #expect(SpreadsheetCSV.cell("+1") == "'+1")
        #expect(SpreadsheetCSV.cell("-2") == "'-2")
        #expect(SpreadsheetCSV.cell("@cmd") == "'@cmd")
        #expect(SpreadsheetCSV.cell("\tx") == "'\tx")
        #expect(SpreadsheetCSV.cell("a,b\nc") == "\"a,b\nc\"")
        #expect(SpreadsheetCSV.cell(nil) == "")
        #expect(SpreadsheetCSV.row(["a", nil, "b"]) == "a,,b\n")
        // A CRLF and a quote with a combining mark are single Characters: still quoted and doubled.
        #expect(SpreadsheetCSV.cell("a\r\nb") == "\"a\r\nb\"")
        #expect(SpreadsheetCSV.cell("x\"\u{301},y") == "\"x\"\"\u{301},y\"")
    }

    static let evil = "\"><img src=x onerror=alert(1)></script><script>alert(2)</script><!-- \u{2028}&amp;"
    static let hashes = ReportHTML.Hashes(script: "SCRIPTHASH", style: "STYLEHASH")

    static func page(_ reports: [OrderReport], text evil: String = evil) -> String {
        let summary = RunSummary(
            version: "t", startedAt: Timestamp(millis: 0)!, finishedAt: Timestamp(millis: 0)!, exitStatus: 0,
            orders: 1, receipts: 1, flagged: 1, new: 1, exempted: 1, malformed: 1, byRule: [(evil, 1)],
            bySeverity: [], atRisk: [(evil, DecimalAmount("1")!)],
            inputs: [RunSummary.Input(path: evil, sha256: evil, records: 1)], rulesSHA256: evil, ordersPerSecond: 0)
        return ReportHTML.render(summary: summary, reports: reports, hashes: hashes)
    }

    static func hostileReports() -> [OrderReport] {
        let evil = Self.evil
        let f = Finding(
            orderID: evil, userID: evil, rule: "replayed-transaction", severity: .critical, message: evil,
            evidence: Evidence(expected: evil, actual: evil, extra: [("original_order_id", .string(evil))]))
        var exempt = f
        exempt.rule = "sandbox-in-production"
        exempt.exempted = "reviewer"
        let malformed = Finding(
            orderID: nil, userID: nil, rule: "malformed-record", severity: .low, message: evil,
            evidence: Evidence(
                expected: "a readable record", actual: evil, extra: [("file", .string(evil)), ("line", .integer(3))]))
        return [
            OrderReport(
                orderID: evil, userID: evil, platform: evil, productID: evil, amount: "1", currency: evil,
                createdAt: Timestamp(millis: 1_709_294_400_000), findings: [f, exempt], receiptFields: [(evil, evil)]),
            OrderReport(
                orderID: nil, userID: nil, platform: nil, productID: nil, amount: nil, currency: nil, createdAt: nil,
                findings: [malformed], isOrder: false),
        ]
    }

    @Test("markup from a dump shows as text in the HTML and cannot leave the embedded data")
    func html() {
        let html = Self.page(Self.hostileReports())
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        // The only script elements are the page's: four data blocks and its one script.
        #expect(html.components(separatedBy: "<script").count - 1 == 5)
        #expect(html.components(separatedBy: "</script>").count - 1 == 5)
        #expect(!html.contains("<!--"))
        // Inside the data, markup characters are JSON escapes.
        let data = html.components(separatedBy: "<script type=\"application/json\" id=\"data-rows\">")[1]
            .components(separatedBy: "</script>")[0]
        #expect(data.contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(2)"))
        #expect(data.contains("\\u2028\\u0026amp;"))
    }

    @Test("the open refund requests show markup as text, and wrap Apple's codes and product ids only between words")
    func refundRequests() throws {
        let evil = Self.evil
        let request = RequestFigures.OpenRequest(
            answerBy: try #require(Timestamp(millis: 0)), transactionID: evil, productID: "com.x." + evil,
            orderID: evil, userID: evil, reason: "A_" + evil, status: "answer", deliveryStatus: evil,
            consumptionPercentage: 45_500, refundPreference: "GRANT_FULL")
        let html = ReportHTML.refundRequests(RequestFigures(states: [], open: [request]))
        #expect(!html.contains("<img") && !html.contains("<script") && !html.contains("<!--"))
        #expect(html.contains("<td class=\"mono\">\(HTMLEscaping.escape(evil))</td>"))
        #expect(html.contains("<td class=\"words\">com.<wbr>x.<wbr>\(HTMLEscaping.escape(evil))</td>"))
        #expect(html.contains("<td class=\"words\">A_<wbr>\(HTMLEscaping.escape(evil))</td>"))
        #expect(html.contains("<td class=\"n\">45.5 %</td><td class=\"words\">GRANT_<wbr>FULL</td>"))
    }

    @Test("the Content-Security-Policy runs only the page's own script and style, by hash")
    func csp() {
        let html = Self.page([], text: "plain")
        let csp =
            "default-src 'none'; script-src 'sha256-SCRIPTHASH'; style-src 'sha256-STYLEHASH'; img-src 'none'; "
            + "base-uri 'none'; form-action 'none'"
        #expect(
            html.contains(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"\(csp.replacingOccurrences(of: "'", with: "&#39;"))\">"
            ))
        #expect(!html.contains("unsafe"))
        #expect(html.contains("<script>" + ReportAssets.script + "</script>"))
        #expect(html.contains("<style>" + ReportAssets.style + "</style>"))
        // The page loads nothing and has no inline handlers or style attributes of its own.
        let markup = html.replacingOccurrences(of: ReportAssets.script, with: "")
        for banned in ["src=", "href=", "style=\"", "http:", "https:", "url("] {
            #expect(!markup.contains(banned), "\(banned)")
        }
        #expect(markup.firstRange(of: #/ on[a-z]+=/#) == nil)
    }

    @Test("the embedded rows leave out trailing defaults, write severities as numbers and repeated values once")
    func compactRows() throws {
        let f = Finding(
            orderID: "O-1", userID: "u1", rule: "missing-receipt", severity: .medium, message: "no receipt",
            evidence: Evidence(expected: "a receipt", actual: nil))
        let r = OrderReport(
            orderID: "O-1", userID: "u1", platform: "ios", productID: "p", amount: "0.99", currency: "USD",
            createdAt: nil, findings: [f])
        var strings = SharedStrings()
        let one = Self.tableRow(r, &strings)
        #expect(one == "[\"O-1\",\"u1\",0,1,2,3,null,[[4,2,\"no receipt\",5]]]")
        var other = r
        other.orderID = "O-2"
        other.platform = "android"
        let two = Self.tableRow(other, &strings)
        #expect(two == "[\"O-2\",\"u1\",6,1,2,3,null,[[4,2,\"no receipt\",5]]]")
        #expect(
            String(decoding: strings.json, as: UTF8.self)
                == "[\"ios\",\"p\",\"0.99\",\"USD\",\"missing-receipt\",\"a receipt\",\"android\"]")

        // Bounded: long strings and strings past the cap are written in place, still HTML-safe.
        var small = SharedStrings(maxCount: 1, maxLength: 4)
        var filled: [UInt8] = []
        for text in ["ios", "</script>", "ios2"] {
            filled.append(0x2C)
            small.write(text, to: &filled)
        }
        #expect(String(decoding: filled, as: UTF8.self) == ",0,\"\\u003c/script\\u003e\",\"ios2\"")
        #expect(
            ReportHTML.grouped(87757) == "87,757" && ReportHTML.grouped(999) == "999"
                && ReportHTML.grouped(1_000_000) == "1,000,000")
    }

    @Test("findings.jsonl lines are each finding's JSON, and flagged.csv rows are escaped cells")
    func lines() {
        var reports = Self.hostileReports()
        reports[0].findings[0].review = ReviewMark(
            status: .reviewed, verdict: "fraud", note: Self.evil, by: nil, at: "t")
        reports[0].findings.append(reports[0].findings[0])
        reports[0].findings[2].rule = "=1+1"
        reports[0].findings[2].evidence.extra += [
            ("n", .number("1.5")), ("o", .object(JSONObject([("a", .array([]))]))),
        ]
        for r in reports {
            var expected: [UInt8] = []
            for f in r.findings {
                JSONWriter().write(.object(f.json), to: &expected)
                expected.append(0x0A)
            }
            #expect(Array(ReportLines(r).jsonl) == expected)
        }
        let evil = SpreadsheetCSV.cell(Self.evil)
        let row =
            evil + "," + evil + "," + evil + "," + evil + ",1," + evil + ",2024-03-01T12:00:00.000Z,critical,"
            + "'=1+1;replayed-transaction," + SpreadsheetCSV.cell(Self.evil + " | " + Self.evil) + "\n"
        #expect(String(decoding: ReportLines(reports[0]).csv, as: UTF8.self) == row)
        #expect(ReportLines(reports[1]).csv.isEmpty)
    }

    /// The report's table row, its shared strings filled in from `strings`.
    static func tableRow(_ r: OrderReport, _ strings: inout SharedStrings) -> String {
        let lines = ReportLines(r)
        var out: [UInt8] = []
        if lines.sections.first == .rows { lines.writeElement(0, strings: &strings, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("the page's script builds nodes from text only")
    func scriptUsesTextOnly() {
        for banned in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(", "</"] {
            #expect(!ReportAssets.script.contains(banned), "\(banned)")
        }
    }

    @Test("charts come with their numbers, and labels from a dump are escaped")
    func charts() {
        var charts = ReportCharts()
        for r in Self.hostileReports() { charts.add(r) }
        let html = charts.html()
        #expect(!html.contains("<img"))
        #expect(
            html.contains(
                "<td>replayed-transaction</td><td class=\"about\">one store transaction credited to more than one order</td>"
                    + "<td class=\"n\">1</td><td class=\"n\">0</td><td class=\"n\">1</td>"))
        #expect(html.contains("<li><span>2024-03-01</span> <b>1</b></li>"))
        #expect(html.contains("<td class=\"n\">1</td><td class=\"n\">1</td></tr>"))  // one order, 1 at risk
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
    }

    @Test(
        "the rules table says what each rule flags: a named rule's sentence, a custom rule's message (escaped) and place"
    )
    func legend() throws {
        let text = "flag high evil-rule if order.amount > 1 say \"<b onmouseover=alert(1)>big</b>\"\n"
        let rules = try RulesDirectory.load(path: "R", files: ["a.rules": Array(text.utf8)]).get()
        var f = Self.hostileReports()[0]
        f.findings[0].rule = "evil-rule"
        var charts = ReportCharts()
        charts.add(f)
        let html = charts.html(legend: RuleLegend(rules.settings))
        #expect(
            html.contains(
                "<td>evil-rule</td><td class=\"about\">custom rule (R/a.rules:1): &lt;b onmouseover=alert(1)&gt;big&lt;/b&gt;</td>"
            ))
        #expect(html.contains("<td>sandbox-in-production</td>") == false)  // exempted: not in the chart
        #expect(!html.contains("<b onmouseover"))
    }
}
