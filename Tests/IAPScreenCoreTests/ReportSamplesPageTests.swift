import Foundation
import IAPBasics
import Reporting
import Screening
import Testing

@testable import Night

/// report.html of the shipped samples screened with their store events (the README's first
/// command), as a reader sees it in Chromium at 1280×800: the rows the store events add to
/// the table, the links that open rows, and the refund requests.
@Suite("report.html of the shipped samples", .serialized, .enabled(if: Chromium.usable, Chromium.skipReason))
struct ReportSamplesPageTests {
    /// The README's first command (its ledger in the scratch directory); report.html's path.
    func screenSamples(_ s: Scratch) throws -> String {
        let samples = GoldenOutputTests.root + "/samples/"
        let orders = ["orders-appstore.csv.gz", "orders-play.jsonl.gz", "orders-storekit.xml.gz"].map { samples + $0 }
        let run = try Tool.run(
            ["screen", "--rules", samples + "Rules", "--orders"] + orders + [
                "--receipts", samples + "receipts-appstore.csv.gz", "--store-events", samples + "store-events.jsonl.gz",
                "--now", "2024-03-02T13:00:00Z", "--out", s.file("out"), "--quiet",
            ], in: s.path)
        #expect(run.status == 0, "\(run.stderr)")
        return s.file("out/report.html")
    }

    /// Each row the flagged-orders table shows: its cells' text after the ▸, then `open` or `closed`.
    func rows(_ page: ChromiumPage) throws -> [[String]] {
        let json = try page.evaluate(
            """
            JSON.stringify(Array.from(document.querySelectorAll('#t-rows tbody tr[data-row]')).map(function (tr) {
              return Array.from(tr.cells).slice(1).map(function (c) { return c.textContent; })
                .concat([tr.classList.contains('open') ? 'open' : 'closed']);
            }))
            """)
        return try JSONDecoder().decode([[String]].self, from: Data(json.utf8))
    }

    @Test(
        "a store event not believed that names an order of the dump shows that order (platform, product, amount), labelled a store event, not a receipt without order"
    )
    func storeEventRowsShowTheirOrder() throws {
        let s = try Scratch()
        let file = try screenSamples(s)
        let events = try rows(ChromiumPage(file, fragment: "rule=store-event-invalid&sort=order&dir=asc"))
        #expect(
            events.map { $0[0] }
                == ["ORD-1000015", "ORD-1000018", "ORD-1000021", "ORD-1000153", "ORD-1000182"].map {
                    $0 + " store event"
                })
        #expect(
            events.first
                == [
                    "ORD-1000015 store event", "user-13158", "ios", "com.example.game.vip.monthly", "9.99 USD",
                    "2024-03-01T19:02:04Z", "critical", "store-event-invalid", "new", "closed",
                ])
        #expect(events.allSatisfy { !$0.contains("") }, "every cell of an order's row is filled: \(events)")
        // The receipts whose order is not in the dump keep their label.
        let receipts = try rows(ChromiumPage(file, fragment: "rule=orphan-receipt"))
        #expect(receipts.map { $0[0] } == ["ORD-1000118 receipt only", "ORD-1000248 receipt only"])
    }

    @Test("the line above the table counts each kind of row it lists as what it is, and they add up to the rows shown")
    func tableCountsWhatItSays() throws {
        let s = try Scratch()
        let page = try ChromiumPage(try screenSamples(s))
        #expect(
            try page.evaluate("document.querySelector('#orders p').textContent").hasPrefix(
                "43 flagged orders; the table also lists 2 receipts whose order is not in the dump and 5 store "
                    + "events not believed (they flag no order)."))
        #expect(
            try page.evaluate("document.getElementById('v-rows').textContent") == "Showing 1–50 of 50 listed orders.")
    }

    @Test("a store event not believed that names an earlier night's order shows what the ledger keeps of that order")
    func storeEventOnEarlierOrder() throws {
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1").run.status == 0)
        #expect(try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2").run.status == 0)
        let page = try ChromiumPage(w.scratch.file("out2/report.html"), fragment: "rule=store-event-invalid")
        #expect(
            try rows(page) == [
                [
                    "G store event", "user-G", "ios", "com.x.gems", "4.99 USD", "2024-03-01T12:00:00Z", "critical",
                    "store-event-invalid", "new", "closed",
                ]
            ])
    }

    @Test(
        "#open= opens a store event's row and an orphan receipt's by their order id, and shows their evidence"
    )
    func openByOrderID() throws {
        let s = try Scratch()
        let page = try ChromiumPage(try screenSamples(s), fragment: "open=ORD-1000015&open=ORD-1000118")
        #expect(
            try rows(page).filter { $0.last == "open" }.map(\.[0]) == [
                "ORD-1000015 store event", "ORD-1000118 receipt only",
            ])
        let details = try page.evaluate(
            "Array.from(document.querySelectorAll('#t-rows tr.detail')).map(function (tr) { return tr.textContent; }).join('\\n')"
        )
        #expect(details.contains("a REFUND store event of transaction 100000000001873 at "))
        #expect(details.contains("a receipt for order ORD-1000118 ("))
    }

    @Test(
        "every row opens by its id: an order's own row and its store event's both by the order id, a store event naming no order by its file and line, which the page writes back when it is opened by hand"
    )
    func openEveryRow() throws {
        let s = try Scratch()
        let file = try Self.page(
            [Self.order("O-9"), Self.storeEvent(naming: "O-9"), Self.storeEvent(naming: nil)], in: s)
        let place = Self.eventFile + ":7"
        let both = try rows(ChromiumPage(file, fragment: Chromium.fragment([("open", "O-9")])))
        #expect(both.filter { $0.last == "open" }.map(\.[0]).sorted() == ["O-9", "O-9 store event"])
        let page = try ChromiumPage(file, fragment: Chromium.fragment([("open", place)]))
        let shown = try rows(page)
        #expect(shown.filter { $0.last == "open" }.map(\.[0]) == [place + " store event naming no order"])
        #expect(!(try page.evaluate("document.body.getAttribute('data-pwned') || document.title")).contains("pwned"))
        // Closed and opened again by its ▸: the link to the view names it as the page does.
        let written = try page.evaluate(
            """
            (function () {
              var b = document.querySelector('#t-rows tr.open button.toggle');
              b.click();
              document.querySelector('#t-rows tr[data-row="' + b.closest('tr').getAttribute('data-row') + '"] button.toggle').click();
              return JSON.stringify(new URLSearchParams(location.hash.slice(1)).getAll('open'));
            })()
            """)
        #expect(written == String(decoding: try JSONEncoder().encode([place]), as: UTF8.self))
    }

    @Test(
        "at 1280×800 every column of the refund requests is readable: no cell is cut, the page does not scroll sideways, ids and deadlines stay on one line"
    )
    func refundRequestsFit() throws {
        let s = try Scratch()
        let page = try ChromiumPage(try screenSamples(s), width: 1280, height: 800)
        let cut = try page.evaluate(
            """
            (function () {
              var out = [], root = document.documentElement;
              var box = document.getElementById('refund-requests').getBoundingClientRect();
              if (root.scrollWidth > root.clientWidth) { out.push('the page is ' + root.scrollWidth + ' px wide in ' + root.clientWidth); }
              Array.from(document.querySelectorAll('#open-requests th, #open-requests td')).forEach(function (c) {
                var r = c.getBoundingClientRect();
                if (c.scrollWidth > c.clientWidth || r.left < box.left - 0.5 || r.right > box.right + 0.5) {
                  out.push(c.textContent + ' at ' + Math.round(r.left) + '-' + Math.round(r.right) + ', ' + c.scrollWidth + ' px in ' + c.clientWidth);
                }
              });
              // The deadline, transaction, order and user: one line each, never broken at a hyphen.
              Array.from(document.querySelectorAll('#open-requests tbody tr')).forEach(function (tr) {
                [0, 1, 3, 4].forEach(function (k) {
                  var range = document.createRange();
                  range.selectNodeContents(tr.cells[k]);
                  if (tr.cells[k].textContent && range.getClientRects().length !== 1) { out.push(tr.cells[k].textContent + ' wraps'); }
                });
              });
              return out.join('\\n');
            })()
            """)
        #expect(cut == "", "\(cut)")
        let cells = try page.evaluate(
            """
            Array.from(document.querySelectorAll('#open-requests tbody tr')).map(function (tr) {
              return Array.from(tr.cells).map(function (c) { return c.textContent; }).join('|');
            }).join('\\n')
            """)
        #expect(
            cells.contains(
                "2024-03-02T18:38:00Z|100000000000737|com.example.game.gems100|ORD-1000007|user-12466|OTHER|answer|DELIVERED|100 %|DECLINE"
            ))
        #expect(cells.contains("|UNSATISFIED_WITH_PURCHASE|answer|UNDELIVERED_OTHER|0 %|GRANT_FULL"))
    }

    /// An order of the dump with one finding.
    static func order(_ id: String) -> OrderReport {
        let f = Finding(
            orderID: id, userID: "u-" + id, rule: "sandbox-in-production", severity: .high,
            message: "a Sandbox receipt was credited in production",
            evidence: Evidence(expected: "Production", actual: "Sandbox"))
        return OrderReport(
            orderID: id, userID: "u-" + id, platform: "ios", productID: "com.x.gems", amount: "0.99", currency: "USD",
            createdAt: nil, findings: [f])
    }

    @Test("a store event not believed that names no order says so, and nothing of its markup runs")
    func storeEventWithoutOrder() throws {
        let s = try Scratch()
        let page = try ChromiumPage(try Self.page([Self.storeEvent(naming: nil)], in: s))
        #expect(try rows(page).first?.first == Self.eventFile + ":7 store event naming no order")
        #expect(
            try page.evaluate("document.title + ' ' + (document.body.getAttribute('data-pwned') || 'safe')").hasSuffix(
                " safe"))
    }

    /// report.html of `reports` in `s`; its path.
    static func page(_ reports: [OrderReport], in s: Scratch) throws -> String {
        try s.write(
            "report.html", ReportHTML.render(summary: .blank, reports: reports, hashes: ReportWriter.pageHashes))
    }

    /// Where `storeEvent` was logged: a file whose name is markup, line 7.
    static let eventFile = HostileNight.imagePayload

    /// A forged refund of a transaction that `order` took (nil: no order took it).
    static func storeEvent(naming order: String?) -> OrderReport {
        let words = StoreEventInvalid.words(
            type: "REFUND", transaction: "9999", location: SourceLocation(file: eventFile, line: 7),
            reason: "the signature does not verify: untrusted root")
        let f = Finding(
            orderID: order, userID: order.map { "u-" + $0 }, rule: StoreEventInvalid.id.rawValue, severity: .critical,
            message: words.message, evidence: words.evidence)
        return OrderReport(
            orderID: order, userID: f.userID, platform: nil, productID: nil, amount: nil, currency: nil,
            createdAt: nil, findings: [f], isOrder: false)
    }
}

extension RunSummary {
    /// A run of nothing, for pages made of reports a test builds.
    static let blank = RunSummary(
        version: "t", startedAt: Timestamp(clampingMillis: 0), finishedAt: Timestamp(clampingMillis: 0),
        exitStatus: 0, orders: 0, receipts: 0, flagged: 0, new: 0, exempted: 0, malformed: 0, byRule: [],
        bySeverity: [],
        atRisk: [], inputs: [], rulesSHA256: "", ordersPerSecond: 0)
}
