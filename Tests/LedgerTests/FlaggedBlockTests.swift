import Decompression
import IAPBasics
import Testing

@testable import Ledger

/// The blocks a run packs its flagged orders' receipts and findings.jsonl lines into: what is
/// packed reads back byte for byte, and a block that does not read as one is an error that
/// names it, never a crash or a wrong order's findings.
@Suite("Flagged blocks")
struct FlaggedBlockTests {
    static func entry(_ i: Int) -> (id: String, receipt: String?, lines: [String]) {
        (
            "ORD-\(i)", i % 3 == 0 ? nil : #"[["transaction","\#(i)"]]"#,
            (0..<(i % 4)).map { #"{"order_id":"ORD-\#(i)","n":\#($0),"odd":"\u001e\n<é>"}"# }
        )
    }

    @Test("orders packed 64 a block read back as given, each from its own block")
    func roundTrip() throws {
        var packer = FlaggedBlockPacker()
        var blocks: [FlaggedBlock] = []
        var placed: [Int64] = []
        for i in 0..<150 {
            let e = Self.entry(i)
            placed.append(packer.block)
            if let full = packer.add(
                orderID: e.id, receipt: e.receipt.map { Array($0.utf8) }, lines: e.lines.map { Array($0.utf8) })
            {
                blocks.append(full)
            }
        }
        if let last = packer.finish() { blocks.append(last) }
        #expect(blocks.map(\.n) == [0, 1, 2])
        #expect(placed.filter { $0 == 0 }.count == 64 && placed.last == 2)
        // Packed blocks are base64 of gzip, far smaller than their lines.
        #expect(blocks.allSatisfy { $0.data.first != "\u{1E}" })
        for i in 0..<150 {
            let e = Self.entry(i)
            let found = try blocks[Int(placed[i])].entry(of: e.id)
            #expect(found == FlaggedEntry(orderID: e.id, receipt: e.receipt, lines: e.lines))
        }
        #expect(try blocks[0].entry(of: "ORD-64") == nil)
        let nothing = packer.finish()
        #expect(nothing == nil)
    }

    @Test("an order given twice in a block reads as the later copy")
    func laterWins() throws {
        var packer = FlaggedBlockPacker()
        _ = packer.add(orderID: "o", receipt: nil as [UInt8]?, lines: [Array("{\"a\":1}".utf8)])
        _ = packer.add(orderID: "o", receipt: Array("[]".utf8), lines: [Array("{\"a\":2}".utf8)])
        let finished = packer.finish()
        let block = try #require(finished)
        #expect(try block.entry(of: "o") == FlaggedEntry(orderID: "o", receipt: "[]", lines: ["{\"a\":2}"]))
    }

    @Test("a plain block, as the migration from schema 4 writes them, reads as a packed one")
    func plain() throws {
        let block = FlaggedBlock(n: 7, data: "\u{1E}\"o\\u001e1\"\nnull\n{\"x\":1}\n{\"x\":2}")
        #expect(
            try block.entries() == [FlaggedEntry(orderID: "o\u{1E}1", receipt: nil, lines: [#"{"x":1}"#, #"{"x":2}"#])])
    }

    @Test(
        "a block that does not read as one is an error naming it",
        arguments: [
            ("%%% not base64 %%%", "not base64"),
            (Base64.encode(Array("no gzip here".utf8)), "gzip"),
            ("\u{1E}no-json-id\nnull", "order id"),
            ("\u{1E}\"only an id\"", "order id"),
        ])
    func unreadable(_ data: String, _ says: String) {
        #expect {
            try FlaggedBlock(n: 3, data: data).entries()
        } throws: { error in
            let e = error as? LedgerError
            return e?.code == .unreadableRows && e?.message.contains("flagged block 3") == true
                && e?.message.contains(says) == true
        }
    }

    @Test("a block that inflates past its cap is refused, not inflated whole")
    func bomb() throws {
        let zeros = [UInt8](repeating: 0x41, count: FlaggedBlock.maxInflatedBytes + 1)
        let packed = try #require(FastGzip.member(zeros))
        #expect {
            try FlaggedBlock(n: 1, data: Base64.encode(packed)).entries()
        } throws: { error in
            (error as? LedgerError)?.message.contains("past the cap of \(FlaggedBlock.maxInflatedBytes) bytes") == true
        }
    }
}
