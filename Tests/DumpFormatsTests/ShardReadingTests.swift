import Foundation
import IAPBasics
import Testing

@testable import DumpFormats

/// What the two workers of `--shard 1/2` and `--shard 2/2` read of one dump.
@Suite("Reading a dump as one shard's worker")
struct ShardReadingTests {
    let first = ShardSpec(index: 1, count: 2)!
    let second = ShardSpec(index: 2, count: 2)!

    /// Order ids that fall in shard 1 and in shard 2 of 2.
    var ids: (mine: [String], theirs: [String]) {
        let all = (1...40).map { "ORD-\($0)" }
        return (all.filter { first.owns($0) }, all.filter { second.owns($0) })
    }

    /// Each item the worker of `shard` reads, as a short word: `row ID`, `elsewhere`,
    /// `malformed own|unknown: reason`.
    func read(_ path: String, as shard: ShardSpec, receipts: Bool = false) throws -> [String] {
        let reader = try DumpReader(path: path)
        var out: [String] = []
        while true {
            let item =
                receipts
                ? try reader.nextReceipt(in: shard).map(describe) : try reader.nextOrder(in: shard).map(describe)
            guard let item else { return out }
            out.append(item)
        }
    }

    func describe<Row>(_ read: ShardRead<Row>) -> String {
        switch read {
        case .elsewhere: return "elsewhere"
        case .row(let row as OrderRow): return "row \(row.orderID)"
        case .row(let row as ReceiptRow): return "row \(row.orderID)"
        case .row: return "row"
        case .malformed(let m, let ownID): return "malformed \(ownID ? "own" : "unknown"): \(m.reason)"
        }
    }

    @Test(
        "CSV: another shard's rows are left unread, a bad row with a readable id is its shard's, one without is nobody's in particular"
    )
    func csv() throws {
        let files = try DumpFixtures()
        let (mine, theirs) = ids
        let path = try files.write(
            "o.csv",
            """
            order_id,user_id,created_at,status
            \(mine[0]),u1,2024-03-01T00:00:00Z,credited
            \(theirs[0]),u2,2024-03-01T00:00:00Z,credited
            \(theirs[1]),u3,2024-03-01T00:00:00Z,stolen
            \(mine[1]),u4
            " \(mine[2]) ",u5,2024-03-01T00:00:00Z,credited

            """)
        #expect(
            try read(path, as: first) == [
                "row \(mine[0])", "elsewhere", "elsewhere", "malformed unknown: row has 2 fields, header has 4",
                "row \(mine[2])",
            ])
        #expect(
            try read(path, as: second) == [
                "elsewhere", "row \(theirs[0])",
                "malformed own: status \"stolen\" is not credited, pending, refunded or failed",
                "malformed unknown: row has 2 fields, header has 4", "elsewhere",
            ])
    }

    @Test("CSV: two columns that both name the order id leave every row to be read whole")
    func csvTwoIDColumns() throws {
        let files = try DumpFixtures()
        let (mine, theirs) = ids
        let path = try files.write("r.csv", "order_id,orderNo,receipt\n,\(theirs[0]),AAAA\n\(mine[0]),,BBBB\n")
        // The mapper takes the first that is not empty: the worker cannot know it alone.
        #expect(try read(path, as: first, receipts: true) == ["row \(theirs[0])", "row \(mine[0])"])
    }

    @Test(
        "JSON Lines: the id is found past nested objects and escaped strings; names or values it cannot read alone leave the line to be parsed"
    )
    func jsonLines() throws {
        let files = try DumpFixtures()
        let (mine, theirs) = ids
        let path = try files.write(
            "o.jsonl",
            """
            {"_id":{"$oid":"65e1"},"payload":"{\\"orderId\\":\\"\(mine[0])\\"}","orderId":"\(theirs[0])","userId":"u","createdAt":"2024-03-01T00:00:00Z"}
            {"tags":[1,[2,{"orderId":"\(theirs[1])"}]],"order_id":"\(mine[1])","user_id":"u","created_at":"2024-03-01T00:00:00Z"}
            {"order\\u005fid":"\(theirs[2])","user_id":"u","created_at":"2024-03-01T00:00:00Z"}
            {"orderId":null,"order_id":"\(theirs[3])","user_id":"u","created_at":"2024-03-01T00:00:00Z"}
            {"orderId":"\(theirs[4])","user_id":"u","created_at":"yesterday"}
            {"orderId":"\(mine[2])", broken
            [1, 2]

            """)
        #expect(
            try read(path, as: first) == [
                "elsewhere", "row \(mine[1])", "row \(theirs[2])", "row \(theirs[3])", "elsewhere",
                "malformed own: bad JSON at byte 20: expected a quoted member name",
                "malformed unknown: line is an array, not a JSON object",
            ])
        #expect(
            try read(path, as: second) == [
                "row \(theirs[0])", "elsewhere", "row \(theirs[2])", "row \(theirs[3])",
                "malformed own: created_at \"yesterday\" is not a timestamp", "elsewhere",
                "malformed unknown: line is an array, not a JSON object",
            ])
    }

    @Test(
        "XML: another shard's rows in mysqldump's strict form are left unparsed, a bad one with a plain id is its shard's, the rest is read whole"
    )
    func xml() throws {
        let files = try DumpFixtures()
        let (mine, theirs) = ids
        func row(_ id: String, _ created: String = "2024-03-01 00:00:00", extra: String = "") -> String {
            "\t<row>\n\t\t<field name=\"order_id\">\(id)</field>\n\t\t<field name=\"user_id\">u</field>\n"
                + "\t\t<field name=\"created_at\">\(created)</field>\(extra)\n\t</row>\n"
        }
        let path = try files.write(
            "o.xml",
            """
            <?xml version="1.0"?>
            <mysqldump xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><database name="shop">
            <table_data name="orders">
            \(row(mine[0]))\(row(theirs[0]))\(row(theirs[1], "yesterday"))\(row(mine[1], "yesterday"))
            \t<row><field name="orderId" xsi:nil="true" /><field name="order_id"> \(theirs[2]) </field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            \(row(theirs[3], extra: "<field name=\"note\">caf\u{E9} &amp; &#233; &lt;ok&gt;\(String(repeating: "x", count: 40_000))</field>"))\
            \t<row><field name="order_id">\(theirs[4])&#45;</field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            \t<row a="1"><field name="order_id">\(theirs[5])</field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            \t<row><!-- \(mine[2]) --><field name="order_id">\(theirs[6])</field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            <!-- <row><field name="order_id">\(theirs[7])</field></row> -->
            \(row(mine[3], extra: "<field name=\"n\">a\rb</field>"))\
            </table_data></database></mysqldump>
            """)
        // Parsed or not, each row is its id's shard's; a bad one too, once its id is plain.
        let t4 = theirs[4] + "-"
        let readFirst = try read(path, as: first)
        let readSecond = try read(path, as: second)
        #expect(
            readFirst == [
                "row \(mine[0])", "elsewhere", "elsewhere",
                "malformed own: created_at \"yesterday\" is not a timestamp",
                "elsewhere", "elsewhere", first.owns(t4) ? "row \(t4)" : "elsewhere", "elsewhere", "elsewhere",
                "row \(mine[3])",
            ], "\(readFirst)")
        #expect(
            readSecond == [
                "elsewhere", "row \(theirs[0])", "malformed own: created_at \"yesterday\" is not a timestamp",
                "elsewhere",
                "row \(theirs[2])", "row \(theirs[3])", second.owns(t4) ? "row \(t4)" : "elsewhere", "row \(theirs[5])",
                "row \(theirs[6])", "elsewhere",
            ], "\(readSecond)")
        // Left unparsed: the strict rows only. A reference in the id, an attribute on the row,
        // a comment in it, a CR, or a row inside a comment leave it to libxml2.
        var skim = XMLStrictRows(shard: first, limits: .standard)
        let bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
        var strict: [Bool] = []
        bytes.withUnsafeBytes { all in
            var at = 0
            while at < all.count {
                switch skim.next(UnsafeRawBufferPointer(rebasing: all[at...]), ended: true) {
                case .push(let n): at += max(n, 1)
                case .needMore: return
                case .row(let range, let elsewhere, _, _):
                    strict.append(elsewhere)
                    at += range.upperBound
                }
            }
        }
        #expect(strict == [false, true, true, false, true, true])
        // In pieces of 16 KiB (a 40 KB row straddles them): the same items.
        for shard in [first, second] {
            let small = try DumpReader(bytes: bytes, name: path, buffers: .small)
            var items: [String] = []
            while let item = try small.nextOrder(in: shard) { items.append(describe(item)) }
            #expect(items == (shard == first ? readFirst : readSecond))
        }
    }

    @Test("XML: a document broken after rows a worker left unparsed fails at the line and column it does unsharded")
    func xmlErrorPlace() throws {
        let files = try DumpFixtures()
        let (_, theirs) = ids
        var rows = ""
        for id in theirs.prefix(6) {
            rows +=
                "\t<row>\n\t\t<field name=\"order_id\">\(id)</field>\n\t\t<field name=\"user_id\">u</field>\n"
                + "\t\t<field name=\"created_at\">2024-03-01</field>\n\t</row>\n"
        }
        for broken in ["\t<row><field name=\"order_id\">x</feld></row>\n", "  <oops &nbsp; />\n", "\t<row>\n"] {
            let path = try files.write(
                "b.xml",
                "<?xml version=\"1.0\"?>\n<mysqldump><database><table_data>\n" + rows + "  " + broken
                    + "</table_data></database></mysqldump>\n")
            func failure(_ shard: ShardSpec?) -> String {
                do {
                    let reader = try DumpReader(path: path)
                    while true {
                        if let shard {
                            guard try reader.nextOrder(in: shard) != nil else { return "no error" }
                        } else {
                            guard try reader.nextOrder() != nil else { return "no error" }
                        }
                    }
                } catch { return error.reason }
            }
            let unsharded = failure(nil)
            #expect(unsharded.contains("line "), "\(unsharded)")
            #expect(failure(first) == unsharded, "\(broken)")
            #expect(failure(second) == unsharded, "\(broken)")
        }
    }
}
