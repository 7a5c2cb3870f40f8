import Foundation
import JSONText
import Testing

@Suite("Reconciling a generated world with its store reports", .serialized)
struct ReconcileWorldTests {
    /// The first seven columns (store … currency) of each data row.
    func keys(_ text: String) -> [String] {
        text.split(separator: "\n").dropFirst().map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).prefix(7).joined(separator: ",")
        }.sorted()
    }

    @Test("every planted difference is reported in its bucket, and nothing else is")
    func plantedDifferences() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let reports = try FileManager.default.contentsOfDirectory(atPath: world.path + "/store-reports").sorted()
            .map { world.path + "/store-reports/" + $0 }
        #expect(reports.contains { $0.hasSuffix(".zip") } && reports.contains { $0.hasSuffix(".txt.gz") })
        let run = try Tool.run(
            ["reconcile", "--rules", world.path + "/Rules", "--orders"] + world.orders
                + ["--receipts", world.receipts, "--store-report"] + reports + [
                    "--out", s.file("out"), "--fail-on", "high",
                ])
        #expect(run.status == 1, "\(run.stderr)")
        let expectedText = try String(contentsOfFile: world.path + "/expected-reconciliation.csv", encoding: .utf8)
        let expected = keys(expectedText)
        let reported = keys(try s.read("out/reconciliation.csv"))
        #expect(reported == expected)
        for missing in Set(expected).subtracting(reported) { Issue.record("not reported: \(missing)") }
        for extra in Set(reported).subtracting(expected) { Issue.record("not planted: \(extra)") }
        // The world plants every bucket, and the store-side cases of its own.
        let buckets = Set(expected.map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] })
        #expect(
            buckets == [
                "lost-order", "unpaid-credit", "refunded-still-credited", "amount-mismatch", "unit-difference",
                "timing-difference",
            ])
        for name in [
            "reconcile-store-missing", "reconcile-store-refund", "reconcile-store-amount", "reconcile-late-credit",
            "reconcile-store-only", "late-lost-order", "replay",
        ] {
            #expect(expectedText.contains("," + name + "\n"), "the world should plant \(name)")
        }
        // Sales and earnings rows of one order are one order; only the broken dump rows are skipped.
        let json = try #require(try JSONParser.parse(try s.read("out/reconciliation.json")).object)
        let skipped = try #require(json["skipped"]?.array)
        #expect(skipped.allSatisfy { ($0.object?["file"]?.string ?? "").contains("orders-") })
        #expect(json["inputs"]?.array?.count == world.orders.count + 1 + reports.count)
    }
}
