import Foundation
import JSONText
import Testing

/// A finding without an order — a record too broken to name one — is known again by where it
/// stands: a rerun on the same ledger says `seen`, as it does of every other finding.
@Suite("Findings without an order, on a second night")
struct MalformedSeenTests {
    @Test("a malformed line is new on the first run and seen on a rerun, the dump named by another path too")
    func rerunSaysSeen() throws {
        let w = try ThreeNights()
        let good = JSONValue.object(try w.apple("A", txn: "1001", at: "2024-03-01T10:00:00Z")).jsonText
        let dump = good + "\n{\"order_id\": \n[1,2\n"
        try w.scratch.write("orders.jsonl", dump)
        try FileManager.default.createDirectory(
            atPath: w.scratch.file("copy"), withIntermediateDirectories: true)
        try w.scratch.write("copy/orders.jsonl", dump)

        func malformed(_ orders: String, _ out: String) throws -> [String] {
            let r = try Tool.run(
                [
                    "screen", "--rules", "Rules", "--orders", orders, "--out", out, "--ledger", "sqlite:ledger.sqlite",
                    "--quiet",
                ], in: w.scratch.path)
            #expect(r.status == 0, "\(r.stderr)")
            let found = try FindingLine.read(w.scratch.file(out + "/findings.jsonl")).filter {
                $0.rule == "malformed-record" && $0.orderID == nil
            }
            return found.map { $0.review?["status"]?.string ?? "-" }
        }
        let first = try malformed("orders.jsonl", "out1")
        #expect(first.count == 2 && first.allSatisfy { $0 == "new" }, "\(first)")
        #expect(try malformed("orders.jsonl", "out2") == ["seen", "seen"])
        #expect(try malformed(w.scratch.file("copy/orders.jsonl"), "out3") == ["seen", "seen"])
        let summary = try JSONParser.parse(try w.scratch.read("out2/summary.json")).object
        #expect(summary?["new"] == .integer(0))
    }
}
