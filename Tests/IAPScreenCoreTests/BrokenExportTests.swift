import Foundation
import JSONText
import Testing

/// A broken export must not look like a clean night (docs/inputs.md): an orders dump with no
/// record, or one whose header names no order id, is exit 3 naming the file; a night without
/// a single receipt says so.
@Suite("Broken exports that must not pass")
struct BrokenExportTests {
    static let header = "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at\n"

    func screen(_ w: ThreeNights, _ orders: [String], _ extra: [String] = []) throws -> ToolRun {
        try Tool.run(
            ["screen", "--rules", "Rules", "--orders"] + orders + ["--out", "out", "--ledger", "none"] + extra,
            in: w.scratch.path)
    }

    @Test("an empty orders dump and one with a header alone are exit 3 naming the file, unless --allow-empty")
    func emptyDump() throws {
        let w = try ThreeNights()
        try w.scratch.write("empty.csv", "")
        try w.scratch.write("header.csv", Self.header)
        try w.write("night.jsonl", [try w.apple("A", txn: "1001", at: "2024-03-01T10:00:00Z")])
        for file in ["empty.csv", "header.csv"] {
            let r = try screen(w, ["night.jsonl", file])
            #expect(r.status == 3, "\(file): \(r.stderr)")
            #expect(r.stderr.contains(file) && r.stderr.contains("holds no order record"), "\(r.stderr)")
            #expect(r.stderr.contains("--allow-empty"))
            #expect(!FileManager.default.fileExists(atPath: w.scratch.file("out/summary.json")))
        }
        let allowed = try screen(w, ["header.csv"], ["--allow-empty"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("iapscreen: 0 orders"))
    }

    @Test("a header that names no order id column is exit 3 with the header found and the names expected")
    func noOrderColumn() throws {
        let w = try ThreeNights()
        try w.scratch.write(
            "orders.csv",
            "id,user_id,item_id,platform,amount,currency,status,created_at\n"
                + "A,u1,gems,ios,4.99,USD,credited,2024-03-01T10:00:00Z\n")
        let r = try screen(w, ["orders.csv"], ["--fail-on", "high"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("orders.csv"), "\(r.stderr)")
        #expect(r.stderr.contains("names no order id column"), "\(r.stderr)")
        #expect(r.stderr.contains(#""id", "user_id""#), "the header found: \(r.stderr)")
        #expect(r.stderr.contains("`order_id`"), "the names expected: \(r.stderr)")
    }

    @Test("orders and not one receipt: the summary line says so, and asks whether --receipts was forgotten")
    func noReceiptAtAll() throws {
        let w = try ThreeNights()
        try w.scratch.write(
            "orders.csv", Self.header + "A,u1,gems,ios,1001,4.99,USD,credited,2024-03-01T10:00:00Z\n")
        let r = try screen(w, ["orders.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no receipt at all: none of the 1 orders came with one"), "\(r.stderr)")
        #expect(r.stderr.contains("was it forgotten?"))
        let withReceipts = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.csv", "--out", "out2", "--ledger", "none",
                "--receipts", "orders.csv",
            ], in: w.scratch.path)
        #expect(withReceipts.stderr.contains("no receipt at all") && !withReceipts.stderr.contains("forgotten"))
    }
}
