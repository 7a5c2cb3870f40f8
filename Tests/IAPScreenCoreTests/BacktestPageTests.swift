import Foundation
import IAPBasics
import JSONText
import Testing

@testable import IAPScreenCore
@testable import Reporting

/// backtest.html as the reviewer of a rule change sees it: headless Chromium opens the page
/// (its script runs under the page's Content-Security-Policy) and these tests read the DOM.
@Suite("backtest.html in a browser", .serialized, .enabled(if: Chromium.usable, Chromium.skipReason))
struct BacktestPageTests {
    static let scriptOrder = "<script>document.body.dataset.pwned=1</script>"
    static let imageUser = #"<img src=x onerror="document.body.dataset.pwned=1">"#
    static let svgRule = #""><svg onload="document.body.dataset.pwned=1">"#
    static let baseline = "Rules</title><script>document.body.dataset.pwned=1</script>"
    static let candidate = #"Rules-next" onload="document.body.dataset.pwned=1"#

    static func row(
        _ order: String, user: String, amount: String, _ currency: String, _ before: [String], _ after: [String],
        _ change: BacktestChange, verdict: String?, refunded: Bool, severities: [SeverityChange] = []
    ) -> BacktestRow {
        BacktestRow(
            orderID: order, userID: user, createdAt: Timestamp(seconds: 1_709_294_400), productID: "com.x.gems",
            amount: amount, currency: currency, baselineRules: before, candidateRules: after, change: change,
            verdict: verdict, refunded: refunded, severityChanges: severities)
    }

    /// Each kind of change, every verdict, refunded or not, two currencies, and markup in the data.
    static let rows = [
        row(
            scriptOrder, user: "u1", amount: "4.99", "USD", [], ["signature-invalid"], .newlyFlagged, verdict: "fraud",
            refunded: true),
        row(
            "O-2", user: imageUser, amount: "0.99", "EUR", [], ["velocity"], .newlyFlagged, verdict: "legit",
            refunded: false),
        row(
            "O-3", user: "u3", amount: "1.99", "USD", [], ["signature-invalid", "velocity"], .newlyFlagged,
            verdict: nil, refunded: true),
        row(
            "O-4", user: "u4", amount: "9.99", "EUR", ["velocity"], [], .noLongerFlagged, verdict: "fraud",
            refunded: false),
        row(
            "O-5", user: "u5", amount: "2", "USD", ["missing-receipt"], [], .noLongerFlagged, verdict: nil,
            refunded: true),
        row(
            "O-6", user: "u6", amount: "3.00", "EUR", ["missing-receipt"], [svgRule, "missing-receipt"], .rulesChanged,
            verdict: nil, refunded: false,
            severities: [SeverityChange(rule: "missing-receipt", baseline: "medium", candidate: "low", findings: 1)]),
    ]

    static func totals(_ rows: [BacktestRow], counts: [String: (Int, Int)]) -> BacktestTotals {
        var t = BacktestTotals()
        t.orders = 40
        t.flaggedBaseline = 10
        t.flaggedCandidate = 12
        for r in rows { t.add(r) }
        for (rule, (before, after)) in counts {
            t.byRule[rule, default: BacktestTotals.RuleCounts()].baseline = before
            t.byRule[rule, default: BacktestTotals.RuleCounts()].candidate = after
        }
        return t
    }

    /// Writes the page through `write`'s pieces, and says how large the largest was.
    static func page(in s: Scratch, _ totals: BacktestTotals, _ rows: [BacktestRow]) throws -> (
        file: String, largest: Int, pieces: Int
    ) {
        var bytes = [UInt8]()
        var largest = 0
        var pieces = 0
        try BacktestHTML.write(
            totals: totals, baseline: baseline, candidate: candidate, rows: rows,
            hashes: BacktestFiles.pageHashes
        ) { piece in
            bytes += piece
            largest = max(largest, piece.count)
            pieces += 1
        }
        return (try s.write("backtest.html", String(decoding: bytes, as: UTF8.self)), largest, pieces)
    }

    /// Each shown row's cells as the reader sees them: tags dropped, the serialiser's escapes read back.
    func cells(_ page: DumpedPage) -> [[String]] {
        page.rows(table: "t-changes").map { row in
            row.components(separatedBy: "<td").dropFirst().map { cell in
                let inner = cell.drop { $0 != ">" }.dropFirst().components(separatedBy: "</td>")[0]
                return inner.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
                    .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&nbsp;", with: "\u{a0}").replacingOccurrences(of: "&amp;", with: "&")
            }
        }
    }

    func open(_ file: String, _ fragment: String = "") throws -> DumpedPage {
        let page = DumpedPage(html: try Chromium.dumpDOM(file, fragment: fragment))
        // The page's own script ran (its CSP hash is right), and nothing from the data did.
        #expect(page.body.contains("data-ready="), "the page's script did not run: \(page.body)")
        #expect(!page.html.contains("data-pwned") && !page.html.contains("pwned=\"1\""))
        return page
    }

    func card(_ page: DumpedPage, _ id: String) -> String? {
        guard let start = page.html.range(of: "id=\"\(id)\"><b>") else { return nil }
        return String(page.html[start.upperBound...].prefix { $0 != "<" })
    }

    @Test(
        "the page `backtest` writes for a hostile night: its totals are backtest.json's, the table filters by rule, and nothing from the dump runs"
    )
    func fromTheCommand() throws {
        let s = try Scratch()
        let night = try HostileNight(in: s)
        let candidate = s.file("Candidate")
        try FileManager.default.copyItem(atPath: night.rules, toPath: candidate)
        try s.write(
            "Candidate/default.rules",
            """
            rule missing-receipt off
            flag high every-sale if order.amount > 0 say "\(HostileNight.scriptPayload)"

            """)
        let r = try Tool.run([
            "backtest", "--rules", candidate, "--baseline", night.rules, "--orders", night.orders,
            "--ledger", "none", "--out", s.file("bt"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = try s.read("bt/backtest.csv").split(separator: "\n").dropFirst()
        let withRule = csv.filter { $0.contains("every-sale") }
        try #require(!withRule.isEmpty)
        let json = try #require(try JSONParser.parse(try s.read("bt/backtest.json")).object)
        let page = DumpedPage(
            html: try Chromium.dumpDOM(
                s.file("bt/backtest.html"), fragment: Chromium.fragment([("rule", "every-sale")])))
        // The page's script ran; the dump's (shown as text in the table) did not.
        #expect(page.body.contains("data-ready=") && !page.body.contains("data-pwned="), "\(page.body)")
        #expect(card(page, "total-orders") == json["orders"]?.int64.map(String.init))
        #expect(card(page, "total-newly-flagged") == json["newly_flagged"]?.object?["orders"]?.int64.map(String.init))
        #expect(card(page, "total-rules-changed") == json["rules_changed"]?.object?["orders"]?.int64.map(String.init))
        let shownRows = cells(page)
        #expect(shownRows.count == withRule.count)
        #expect(
            page.text(id: "v-changes")
                == "Showing 1–\(withRule.count) of \(withRule.count) changed orders (filtered from \(csv.count)).")
        // The order whose id is a script: listed, as text.
        #expect(shownRows.contains { $0.first == HostileNight.scriptPayload }, "\(shownRows)")
    }

    @Test("totals, money at risk and the per-rule table; every order in the table, the hostile ones as text")
    func wholePage() throws {
        let s = try Scratch()
        let counts = ["signature-invalid": (3, 5), "velocity": (4, 5), "missing-receipt": (6, 5), Self.svgRule: (0, 1)]
        let file = try Self.page(in: s, Self.totals(Self.rows, counts: counts), Self.rows).file
        let page = try open(file)

        #expect(page.title == "iapscreen backtest: \(shown(Self.candidate)) against \(shown(Self.baseline))")
        #expect(page.text(id: "baseline") == shown(Self.baseline))
        #expect(page.text(id: "candidate") == shown(Self.candidate))

        let expected = [
            "total-orders": "40", "total-flagged-baseline": "10", "total-flagged-candidate": "12",
            "total-newly-flagged": "3", "total-no-longer-flagged": "2", "total-rules-changed": "1",
            "newly-flagged-fraud": "1", "newly-flagged-legit": "1", "newly-flagged-refunded": "2",
            "no-longer-flagged-fraud": "1", "no-longer-flagged-refunded": "1",
        ]
        for (id, n) in expected { #expect(card(page, id) == n, "\(id)") }
        #expect(page.html.contains("id=\"no-longer-flagged-fraud\"><b>1</b><span>reviewed fraud (catches lost)</span>"))
        #expect(
            page.text(id: "summary") == "+3 flagged (1 reviewed fraud, 1 legit, 2 refunded), −2 no longer flagged "
                + "(1 reviewed fraud, 1 refunded), 1 flagged under both with other findings; "
                + "missing-receipt severity medium \u{2192} low: 1 finding")
        #expect(
            page.section(id: "t-severity").contains(
                "<tr><td class=\"mono\">missing-receipt</td><td>medium</td><td>low</td><td class=\"n\">1</td>"
                    + "<td class=\"n\">1</td></tr>"))

        let atRisk = page.section(id: "at-risk")
        #expect(
            atRisk.contains(
                "<tr><td>EUR</td><td class=\"n\">0.99</td><td class=\"n\">9.99</td></tr>"
                    + "<tr><td>USD</td><td class=\"n\">6.98</td><td class=\"n\">2.00</td></tr></tbody>"))

        // Rule id, baseline, candidate, added, removed; sorted by rule id (the quote sorts first).
        let rules = page.section(id: "t-rules").components(separatedBy: "<tr><td class=\"mono\">").dropFirst()
            .map {
                $0.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
                    .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            }
        #expect(
            rules == [
                "\(shown(Self.svgRule)) 0 1 1 0", "missing-receipt 6 5 0 1", "signature-invalid 3 5 2 0",
                "velocity 4 5 2 1",
            ])

        // Every changed order, newly flagged first, as a reviewer reads the row.
        #expect(page.text(id: "v-changes") == "Showing 1–6 of 6 changed orders.")
        let shownRows = cells(page)
        #expect(shownRows.map { $0.first } == [Self.scriptOrder, "O-2", "O-3", "O-4", "O-5", "O-6"])
        #expect(
            shownRows.first == [
                Self.scriptOrder, "u1", "2024-03-01T12:00:00Z", "com.x.gems", "4.99", "USD", "—",
                "signature-invalid", "newly flagged", "fraud", "yes",
            ])
        #expect(shownRows[1][1] == Self.imageUser)
        #expect(shownRows[3].suffix(5) == ["velocity", "—", "no longer flagged", "fraud", "no"])
        #expect(
            shownRows[5].suffix(5) == [
                "missing-receipt", "\(Self.svgRule), missing-receipt",
                "rules changedmissing-receipt medium \u{2192} low",
                "—", "no",
            ])
        // The rule the candidate adds is marked; kept rules are not.
        let o6 = page.rows(table: "t-changes")[5]
        #expect(o6.contains("<span class=\"rule-added\">\(shown(Self.svgRule))</span>, <span>missing-receipt</span>"))
        #expect(page.rows(table: "t-changes")[3].contains("<span class=\"rule-removed\">velocity</span>"))

        // The filters offer what the rows hold.
        #expect(page.html.contains(">newly flagged (3)</option>") && page.html.contains(">rules changed (1)</option>"))
        #expect(
            page.html.contains(">velocity (3)</option>") && page.html.contains(">\(shown(Self.svgRule)) (1)</option>"))
        #expect(!page.html.contains("<script>document") && !page.html.contains("<img") && !page.html.contains("<svg"))
    }

    @Test("filtered views opened from the URL fragment: by change and verdict, by rule, by a hostile rule id")
    func filteredViews() throws {
        let s = try Scratch()
        let file = try Self.page(in: s, Self.totals(Self.rows, counts: [:]), Self.rows).file

        let fraud = try open(file, "change=newly-flagged&verdict=fraud")
        #expect(fraud.text(id: "v-changes") == "Showing 1–1 of 1 changed orders (filtered from 6).")
        #expect(cells(fraud).map { $0[0] } == [Self.scriptOrder])
        #expect(fraud.html.contains("<option value=\"newly-flagged\">newly flagged (3)</option>"))

        // A row matches a rule in either list: O-4 lost it, O-2 and O-3 gain it.
        let velocity = try open(file, "rule=velocity")
        #expect(velocity.text(id: "v-changes") == "Showing 1–3 of 3 changed orders (filtered from 6).")
        #expect(cells(velocity).map { $0[0] } == ["O-2", "O-3", "O-4"])

        let unreviewed = try open(file, Chromium.fragment([("rule", Self.svgRule), ("verdict", "none")]))
        #expect(unreviewed.text(id: "v-changes") == "Showing 1–1 of 1 changed orders (filtered from 6).")
        #expect(cells(unreviewed).map { $0[0] } == ["O-6"])

        let legitLost = try open(file, "change=no-longer-flagged&verdict=legit")
        #expect(legitLost.text(id: "v-changes") == "No changed orders match (filtered from 6).")

        // A value the page does not offer is no filter.
        let unknown = try open(file, "change=deleted&rule=nonexistent")
        #expect(unknown.text(id: "v-changes") == "Showing 1–6 of 6 changed orders.")
    }

    @Test("many rows: the data is written in pieces, and the table pages")
    func pages() throws {
        let s = try Scratch()
        let rows = (1...3000).map {
            Self.row(
                String(format: "O-%05d", $0), user: "u\($0)", amount: "1.00", "USD", [], ["velocity"], .newlyFlagged,
                verdict: nil, refunded: false)
        }
        let written = try Self.page(in: s, Self.totals(rows, counts: ["velocity": (0, 3000)]), rows)
        #expect(
            written.pieces > 5 && written.largest < 80_000,
            "\(written.pieces) pieces, the largest \(written.largest) bytes")

        let page = try open(written.file, "size=1000&page=3&sort=order&dir=desc")
        #expect(page.text(id: "v-changes") == "Showing 2,001–3,000 of 3,000 changed orders.")
        let shownRows = cells(page)
        #expect(shownRows.count == 1000 && shownRows.first?.first == "O-01000" && shownRows.last?.first == "O-00001")
        #expect(page.html.contains("<span>page 3 of 3</span>"))
        #expect(card(page, "total-newly-flagged") == "3,000")
    }

    @Test("no changed order: the page says so, and still shows the totals and the rules")
    func noChanges() throws {
        let s = try Scratch()
        let file = try Self.page(in: s, Self.totals([], counts: ["velocity": (2, 2)]), []).file
        let page = try open(file)
        #expect(page.text(id: "no-changes") == "No order's findings change.")
        #expect(!page.html.contains("id=\"t-changes\"") && !page.html.contains("id=\"data-changes\""))
        #expect(card(page, "total-orders") == "40" && card(page, "total-newly-flagged") == "0")
        #expect(
            page.section(id: "at-risk", until: "</p>").hasSuffix(
                ">None: no order newly or no longer flagged carries an amount.</p>"))
        #expect(
            page.section(id: "t-rules").contains(
                "<tr><td class=\"mono\">velocity</td><td class=\"n\">2</td><td class=\"n\">2</td>"
                    + "<td class=\"n\">0</td><td class=\"n\">0</td></tr>"))
    }
}

private func shown(_ s: String) -> String { DumpedPage.shown(s) }
