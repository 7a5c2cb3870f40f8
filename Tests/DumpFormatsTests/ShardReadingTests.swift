import DumpFormats
import IAPBasics
import Testing

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

    @Test("XML is read whole by every worker (its ids are not found alone); rows and reasons as an unsharded reader's")
    func xml() throws {
        let files = try DumpFixtures()
        let (mine, theirs) = ids
        let path = try files.write(
            "o.xml",
            """
            <?xml version="1.0"?>
            <mysqldump><database name="shop"><table_data name="orders">
            <row><field name="order_id">\(mine[0])</field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            <row><field name="order_id">\(theirs[0])</field><field name="user_id">u</field><field name="created_at">2024-03-01 00:00:00</field></row>
            </table_data></database></mysqldump>
            """)
        #expect(try read(path, as: second) == ["row \(mine[0])", "row \(theirs[0])"])
    }
}
