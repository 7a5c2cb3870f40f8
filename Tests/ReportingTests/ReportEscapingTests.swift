import IAPBasics
import Reporting
import Screening
import Testing

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
    }

    @Test("markup from a dump shows as text in the HTML report")
    func html() {
        let evil = "\"><img src=x onerror=alert(1)></script><script>alert(2)</script>"
        let f = Finding(orderID: evil, userID: "u", rule: "item-id-mismatch", severity: .high, message: evil,
                        evidence: Evidence(expected: evil, actual: evil))
        let report = OrderReport(orderID: evil, userID: "u", platform: "ios", productID: evil, amount: "1", currency: "USD",
                                 createdAt: nil, findings: [f])
        let summary = RunSummary(version: "t", startedAt: Timestamp(millis: 0)!, finishedAt: Timestamp(millis: 0)!, exitStatus: 0,
                                 orders: 1, receipts: 1, flagged: 1, new: 1, exempted: 0, malformed: 0, byRule: [(evil, 1)],
                                 bySeverity: [], atRisk: [], inputs: [], rulesSHA256: "", ordersPerSecond: 0)
        let html = ReportHTML.render(summary: summary, flagged: [report], exempted: [], malformed: [])
        #expect(!html.contains("<img"))
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("Content-Security-Policy"))
    }
}
