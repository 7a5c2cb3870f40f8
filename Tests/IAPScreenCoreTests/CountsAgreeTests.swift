import Foundation
import JSONText
import Testing

/// One night, counted the same by every output (docs/outputs.md, "What each count counts"):
/// a store event not believed counts as a finding without an order and flags none; a finding on
/// an order reviewed `legit` counts nowhere.
@Suite("Counts that agree")
struct CountsAgreeTests {
    @Test(
        "after review --verdict legit: the summary line, summary.json, the metrics and backtest count the same flagged orders and findings that count"
    )
    func countsAgree() throws {
        let w = try ThreeNights()
        func run(_ args: [String]) throws -> ToolRun {
            let r = try Tool.run(args, in: w.scratch.path)
            #expect(r.status == 0, "\(args.first ?? ""): \(r.stderr)")
            return r
        }
        let ledger = ["--ledger", "sqlite:ledger.sqlite"]
        let inputs = ["--orders", "night2.jsonl", "--store-events", "events2.jsonl"] + ledger
        _ = try run(["screen", "--rules", "Rules", "--orders", "night1.jsonl"] + ledger)
        _ = try run(["screen", "--rules", "Rules", "--out", "first"] + inputs)
        _ = try run(["review", "--order", "H", "--verdict", "legit", "--by", "ann"] + ledger)
        // H is legit now; A, C and F stay flagged; G's forged event counts, on no order.
        let screen = try run(["screen", "--rules", "Rules", "--out", "out", "--metrics", "metrics.prom"] + inputs)
        let summary = try #require(try JSONParser.parse(try w.scratch.read("out/summary.json")).object)
        #expect(summary["flagged"] == .integer(3))
        #expect(summary["findings"] == .integer(4) && summary["findings_without_order"] == .integer(1))
        #expect(summary["by_severity"] == .object(JSONObject([("critical", .integer(1)), ("high", .integer(3))])))
        #expect(
            summary["by_rule"]
                == .object(JSONObject([("refunded-after-credit", .integer(3)), ("store-event-invalid", .integer(1))])))
        #expect(
            screen.stderr.contains("3 flagged")
                && screen.stderr.contains("findings that count: 4 (critical 1, high 3), 1 of them on no order"),
            "\(screen.stderr)")

        let metrics = try w.scratch.read("metrics.prom")
        #expect(metrics.contains("iapscreen_flagged_orders 3"))
        #expect(metrics.contains("iapscreen_findings_without_order 1"))
        #expect(metrics.contains(#"iapscreen_findings{rule="refunded-after-credit",severity="high"} 3"#), "\(metrics)")

        _ = try run(["backtest", "--rules", "Rules", "--baseline", "Rules", "--out", "bt"] + inputs)
        let backtest = try #require(try JSONParser.parse(try w.scratch.read("bt/backtest.json")).object)
        let flagged = try #require(backtest["flagged"]?.object)
        #expect(flagged["baseline"] == .integer(3) && flagged["candidate"] == .integer(3), "\(flagged)")
    }

    @Test(
        "money at risk is written at its currency's scale: 150 JPY, not 150.00, in summary.json, the summary line and report.html"
    )
    func atRiskAtItsScale() throws {
        let w = try ThreeNights()
        try w.scratch.write(
            "orders.csv",
            BrokenExportTests.header + "A,u1,gems,ios,1001,150,JPY,credited,2024-03-01T10:00:00Z\n"
                + "B,u2,gems,ios,1002,4.99,USD,credited,2024-03-01T10:00:00Z\n")
        let r = try Tool.run(
            ["screen", "--rules", "Rules", "--orders", "orders.csv", "--out", "out", "--ledger", "none"],
            in: w.scratch.path)
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(try JSONParser.parse(try w.scratch.read("out/summary.json")).object)
        #expect(summary["at_risk"] == .object(JSONObject([("JPY", .string("150")), ("USD", .string("4.99"))])))
        #expect(r.stderr.contains("at risk: JPY 150, USD 4.99"), "\(r.stderr)")
        #expect(try w.scratch.read("out/report.html").contains(#"<td>JPY</td><td class="n">150</td>"#))
    }
}
