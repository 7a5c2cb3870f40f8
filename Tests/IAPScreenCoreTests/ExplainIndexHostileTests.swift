import Foundation
import IAPBasics
import JSONText
import StoreCrypto
import Testing

@testable import Night

/// An explain index taken apart and put together again, lying where its checks still pass:
/// what a crafted file could say. `explain` must answer as reading the night again does, and
/// say what did not hold.
private struct CraftedIndex {
    var head: [UInt8]
    var header: JSONObject
    var trailer: [UInt8]

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        let ledgerLength = bytes.withUnsafeBytes { Int(LittleEndian.uint32($0, bytes.count - 12)) }
        let ledgerAt = bytes.count - 12 - ledgerLength
        let headerLength = bytes.withUnsafeBytes { Int(LittleEndian.uint32($0, ledgerAt - 36)) }
        let headerAt = ledgerAt - 36 - headerLength
        head = Array(bytes[..<headerAt])
        header = try #require(try JSONParser.parse(Array(bytes[headerAt..<(headerAt + headerLength)])).object)
        trailer = Array(bytes[ledgerAt...])
    }

    var data: Data {
        let json = Array(JSONWriter().string(.object(header)).utf8)
        var length: [UInt8] = []
        LittleEndian.put(UInt32(json.count), into: &length)
        return Data(head + json + length + ((try? Digest.sha256(json)) ?? []) + trailer)
    }

    /// The header's `[offset, count]` of a section.
    func section(_ name: String) throws -> (offset: Int, count: Int) {
        let a = try #require(header["sections"]?.object?[name]?.array)
        return (Int(try #require(a[0].int64)), Int(try #require(a[1].int64)))
    }

    mutating func setSection(_ name: String, offset: Int, count: Int) {
        var sections = header["sections"]?.object ?? JSONObject()
        sections.members = sections.members.map {
            $0.key == name ? (name, .array([.integer(offset), .integer(count)])) : $0
        }
        header.members = header.members.map { $0.key == "sections" ? ("sections", .object(sections)) : $0 }
    }

    /// The entry of `orderID` in the orders section, and its index.
    func orderEntry(_ orderID: String) throws -> (entry: OrderEntry, index: Int) {
        let (offset, count) = try section("orders")
        let hash = ShardSpec.fnv1a64(orderID)
        for i in 0..<count {
            let at = offset + i * OrderEntry.size
            let e = head[at..<(at + OrderEntry.size)].withUnsafeBytes { OrderEntry.read($0, index: i) }
            if let e, e.hash == hash { return (e, i) }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Puts `entry` at `index` of the orders section, with a check that holds.
    mutating func replaceOrderEntry(_ entry: OrderEntry, index: Int) throws {
        let at = try section("orders").offset + index * OrderEntry.size
        var bytes: [UInt8] = []
        entry.append(index: index, to: &bytes)
        head.replaceSubrange(at..<(at + OrderEntry.size), with: bytes)
    }
}

@Suite("A crafted explain index: refused with a reason, never believed, never a crash")
struct ExplainIndexHostileTests {
    @Test(
        "sections past the end or of impossible size, gzip members out of order, an entry naming another order's row, facts outside their section or of another order"
    )
    func crafted() throws {
        let s = try Scratch()
        let root = ShippedRulesTests.root + "/samples/"
        let inputs = [
            "--rules", root + "Rules", "--orders", root + "orders-appstore.csv.gz", root + "orders-storekit.xml.gz",
            root + "orders-play.jsonl.gz", "--receipts", root + "receipts-appstore.csv.gz", "--ledger", "none",
        ]
        #expect(try Tool.run(["screen"] + inputs + ["--out", s.file("out"), "--quiet"]).status == 0)
        let path = s.file("out/explain-index.bin")
        let intact = try CraftedIndex(try Data(contentsOf: URL(fileURLWithPath: path)))
        let order = "ORD-1000190"
        let expected = try Tool.run(["explain", "--order", order] + inputs + ["--out", s.file("none")]).stdout
        func expectRefused(_ index: CraftedIndex, saying why: String, _ comment: Comment) throws {
            try index.data.write(to: URL(fileURLWithPath: path))
            let r = try Tool.run(["explain", "--order", order] + inputs + ["--out", s.file("out")])
            #expect(r.status == 0 && !r.bySignal, comment)
            #expect(r.stderr.contains(why), "\(comment): \(r.stderr)")
            #expect(r.stdout == expected, comment)
        }
        // Rewritten as it was: still believed (the crafting itself changes nothing).
        try intact.data.write(to: URL(fileURLWithPath: path))
        let same = try Tool.run(["explain", "--order", order] + inputs + ["--out", s.file("out")])
        #expect(!same.stderr.contains("not using the index") && same.stdout == expected, "\(same.stderr)")

        var huge = intact
        huge.setSection("orders", offset: 8, count: Int.max / 8)
        try expectRefused(huge, saying: "its orders section lies outside the file", "a count past the file")
        var past = intact
        past.setSection("facts", offset: Int(Int32.max), count: 10)
        try expectRefused(past, saying: "its facts section lies outside the file", "a section past the end")

        var members = intact
        var dumps = try #require(members.header["dumps"]?.array)
        var first = try #require(dumps[0].object)
        first.members = first.members.map {
            $0.key == "members"
                ? ("members", .array([.array([.integer(0), .integer(0)]), .array([.integer(0), .integer(5)])])) : $0
        }
        dumps[0] = .object(first)
        members.header.members = members.header.members.map { $0.key == "dumps" ? ("dumps", .array(dumps)) : $0 }
        try expectRefused(members, saying: "are out of order", "gzip members out of order")

        let (entry, index) = try intact.orderEntry(order)
        var elsewhere = intact
        var moved = entry
        moved.record.start = 0
        try elsewhere.replaceOrderEntry(moved, index: index)
        try expectRefused(elsewhere, saying: "is another order's", "an entry naming the first record of a dump")

        var far = intact
        var beyond = entry
        beyond.record.start = 1 << 40
        try far.replaceOrderEntry(beyond, index: index)
        try expectRefused(far, saying: "not using the index in", "an entry past the end of its dump")

        var noFacts = intact
        var pointing = entry
        pointing.facts = UInt64(try intact.section("facts").count) + 100
        try noFacts.replaceOrderEntry(pointing, index: index)
        try expectRefused(noFacts, saying: "an order's facts lies outside its section", "facts past their section")

        // Another order's facts (a replay's original has facts; ORD-1000190 is a replay).
        var other = intact
        let (otherEntry, _) = try intact.orderEntry("ORD-1000189")
        var borrowed = entry
        borrowed.facts = otherEntry.facts
        if borrowed.facts == 0 { borrowed.facts = 1 }
        try other.replaceOrderEntry(borrowed, index: index)
        try expectRefused(other, saying: "not using the index in", "another order's facts")
    }
}
