import Foundation
import IAPBasics
import JSONText
import Reporting
import Screening
import Testing

@testable import Night

/// report.html as a reviewer's browser shows it: headless Chromium opens the page (its
/// script runs under the page's Content-Security-Policy) and these tests read the DOM.
@Suite("report.html in a browser", .serialized, .enabled(if: Chromium.usable, Chromium.skipReason))
struct ReportPageTests {
    /// How a text node with `s` reads in a serialised DOM.
    func shown(_ s: String) -> String { DumpedPage.shown(s) }

    @Test(
        "the page shows the totals, a chart with its numbers, the table filtered to one rule and an opened evidence row; markup from the dump is text and runs nothing"
    )
    func reviewerPage() throws {
        let s = try Scratch()
        let night = try HostileNight(in: s)
        let run = try Tool.run(night.screenArguments(out: s.file("out")))
        #expect(run.status == 0, "\(run.stderr)")
        let page = DumpedPage(
            html: try Chromium.dumpDOM(
                s.file("out/report.html"),
                fragment: Chromium.fragment([
                    ("rule", "replayed-transaction"), ("open", HostileNight.scriptPayload),
                ])))

        // The page's own script ran (its CSP hash is right), and nothing from the dump did.
        #expect(page.body.contains("data-ready="), "the page's script did not run: \(page.body)")
        #expect(!page.body.contains("data-pwned"))
        #expect(page.title?.hasPrefix("iapscreen report ") == true)
        #expect(!page.html.contains("pwned\"") && page.title?.contains("pwned") == false)

        // Totals.
        #expect(page.html.contains("id=\"total-orders\"><b>4</b>"))
        #expect(page.html.contains("id=\"total-flagged\"><b>4</b>"))
        #expect(page.html.contains("id=\"total-exempted\"><b>1</b>"))
        #expect(page.html.contains("id=\"total-malformed\"><b>1</b>"))
        let atRisk = page.section(id: "at-risk")
        #expect(
            atRisk.contains("<td>EUR</td><td class=\"n\">4.99</td>")
                && atRisk.contains("<td>USD</td><td class=\"n\">2.97</td>"))

        // A chart and its numbers: findings per rule and severity, and what each rule flags.
        let rulesChart = page.section(id: "chart-rules", until: "</figure>")
        #expect(rulesChart.contains("<svg"))
        #expect(
            rulesChart.contains(
                "<td>signature-invalid</td><td class=\"about\">\(SignatureInvalid.summary)</td><td class=\"n\">3</td>"))
        #expect(
            rulesChart.contains(
                "<td>replayed-transaction</td><td class=\"about\">\(ReplayedTransaction.summary)</td><td class=\"n\">1</td>"
            ))
        #expect(
            page.section(id: "chart-days", until: "</figure>").contains("<li><span>2024-03-02</span> <b>3</b></li>"))

        // The table, filtered to one rule: only the replay, opened on its evidence.
        #expect(page.text(id: "v-rows") == "Showing 1–1 of 1 listed orders (filtered from 4).")
        let rows = page.rows(table: "t-rows")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.contains("<td class=\"mono\">\(shown(HostileNight.scriptPayload))</td>"))
        #expect(row.contains("<td>\(shown(HostileNight.imagePayload))</td>"))
        #expect(row.contains("replayed-transaction, signature-invalid"))
        #expect(row.contains("aria-expanded=\"true\""))
        #expect(
            row.contains(
                "Replays order <b class=\"mono\">O-1</b> (user u1, credited 2024-03-01T10:00:00Z, transaction \(shown(HostileNight.transactionPayload)))"
            ))
        #expect(row.contains("<tr><th>expected</th><td class=\"mono\">a transaction no other order took</td></tr>"))
        #expect(
            row.contains("<tr><th>actual</th><td class=\"mono\">\(shown(HostileNight.transactionPayload))</td></tr>"))
        // The decoded receipt's key fields, as screening kept them for the flagged order.
        #expect(row.contains("<h3>Receipt</h3>"))
        #expect(
            row.contains(
                "<tr><th>transaction</th><td class=\"mono\">\(shown(HostileNight.transactionPayload))</td></tr>"))
        #expect(page.html.contains("<option value=\"replayed-transaction\">replayed-transaction (1)</option>"))

        // The audit sections.
        let exempted = page.rows(table: "t-exempted")
        #expect(exempted.count == 1 && exempted.first?.contains("sandbox-in-production") == true)
        let malformed = page.rows(table: "t-malformed")
        #expect(malformed.count == 1)
        #expect(malformed.first?.contains("orders.jsonl</td><td>line 5</td>") == true, "\(malformed)")
        #expect(page.html.contains(shown(HostileNight.svgPayload)) == false)  // O-3 is not in the filtered table
    }

    @Test("two nights: verdicts recorded after night one show in night two's table, which filters on them")
    func verdictsOnNightTwo() throws {
        let s = try Scratch()
        try HostileNight.twoNights(
            in: s,
            reviews: [
                ["--order", "O-3", "--verdict", "legit", "--note", "paid by bank transfer", "--by", "ana"],
                ["--order", HostileNight.scriptPayload, "--verdict", "fraud", "--by", "ana"],
            ])

        let page = DumpedPage(
            html: try Chromium.dumpDOM(s.file("night2/report.html"), fragment: "status=reviewed&open=O-3"))
        #expect(page.text(id: "v-rows") == "Showing 1–2 of 2 listed orders (filtered from 5).")
        let rows = page.rows(table: "t-rows")
        let legit = try #require(rows.first { $0.contains(">O-3<") })
        #expect(legit.hasPrefix("\"2\" class=\"legit open\""))
        #expect(legit.contains("<span class=\"tag legit\">reviewed: legit</span>"))
        #expect(legit.contains("by ana on ") && legit.contains(": paid by bank transfer"))
        #expect(rows.contains { $0.contains("<span class=\"tag fraud\">reviewed: fraud</span>") })
        #expect(page.html.contains("id=\"total-flagged\"><b>4</b>"))  // O-3 is legit now, O-6 is new
        #expect(page.html.contains("1 order reviewed legit (shown, not counted)"))
    }

    @Test("an opened row shows the receipt's key fields when the report carries them")
    func receiptFields() throws {
        let s = try Scratch()
        let f = Finding(
            orderID: "O-9", userID: "u9", rule: "sandbox-in-production", severity: .high,
            message: "a Sandbox receipt was credited in production",
            evidence: Evidence(expected: "Production", actual: "Sandbox"))
        let report = OrderReport(
            orderID: "O-9", userID: "u9", platform: "ios", productID: "com.x.gems", amount: "0.99",
            currency: "USD", createdAt: Timestamp(millis: 1_709_294_400_000), findings: [f],
            receiptFields: [("environment", "Sandbox"), ("app_id", HostileNight.imagePayload)])
        let summary = RunSummary(
            version: "t", startedAt: Timestamp(millis: 0)!, finishedAt: Timestamp(millis: 0)!, exitStatus: 0,
            orders: 1, receipts: 1, flagged: 1, new: 1, exempted: 0, malformed: 0, byRule: [], bySeverity: [],
            atRisk: [], inputs: [], rulesSHA256: "", ordersPerSecond: 0)
        let file = try s.write(
            "report.html", ReportHTML.render(summary: summary, reports: [report], hashes: ReportWriter.pageHashes))
        let page = DumpedPage(html: try Chromium.dumpDOM(file, fragment: "open=O-9"))
        #expect(!page.body.contains("data-pwned") && page.title?.contains("pwned") == false)
        let row = try #require(page.rows(table: "t-rows").first)
        #expect(
            row.contains(
                "<h3>Receipt</h3><table class=\"ev receipt\"><tbody><tr><th>environment</th><td class=\"mono\">Sandbox</td></tr>"
                    + "<tr><th>app_id</th><td class=\"mono\">\(shown(HostileNight.imagePayload))</td></tr>"))
    }
}
