import DumpFormats
import IAPBasics
import Testing

@Suite("Reading CSV dumps")
struct CSVReadingTests {
    @Test("each row becomes a record named by the header, with the line it starts on")
    func basicRows() throws {
        let files = try DumpFixtures()
        let path = try files.write("orders.csv", "order_id,user_id,amount\n1001,u1,4.99\n1002,u2,0.99\n")
        let records = try readItems(path).compactMap(\.record)
        #expect(records.count == 2)
        #expect(records[0]["order_id"] == .text("1001"))
        #expect(records[0]["amount"] == .text("4.99"))
        #expect(records[1]["user_id"] == .text("u2"))
        #expect(records.map(\.line) == [2, 3])
        #expect(records.map(\.ordinal) == [1, 2])
        #expect(records[0].location == SourceLocation(file: path, line: 2))
    }

    @Test("quoted fields keep commas, doubled quotes and line breaks, and later lines keep their numbers")
    func quoting() throws {
        let files = try DumpFixtures()
        let text = "id,note,receipt\n1,\"a, b\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",x\n3,plain,\"\"\"\"\n"
        let records = try readItems(try files.write("q.csv", text)).compactMap(\.record)
        #expect(records.count == 3)
        #expect(records[0]["note"] == .text("a, b"))
        #expect(records[0]["receipt"] == .text("say \"hi\""))
        #expect(records[1]["note"] == .text("two\nlines"))
        #expect(records.map(\.line) == [2, 3, 5])
        #expect(records[2]["receipt"] == .text("\""))
    }

    @Test("CRLF line ends and a UTF-8 byte order mark are not part of the data")
    func crlfAndBOM() throws {
        let files = try DumpFixtures()
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("order_id,status\r\n7,\"paid\"\r\n8,pending\r\n".utf8)
        let records = try readItems(try files.write("win.csv", bytes)).compactMap(\.record)
        #expect(records.map { $0.fields.map(\.name) } == [["order_id", "status"], ["order_id", "status"]])
        #expect(records[0]["status"] == .text("paid"))
        #expect(records[1]["status"] == .text("pending"))
    }

    @Test("an unquoted empty field and \\N are null, a quoted empty field is the empty string")
    func nulls() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("n.csv", "a,b,c,d\n,\"\",\\N,\"\\N\"\n")).compactMap(\.record)
        #expect(records.first?.fields.map(\.value) == [.null, .text(""), .null, .text("\\N")])
    }

    @Test("a trailing empty field at the end of the file is still a field")
    func trailingEmptyField() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("t.csv", "a,b\n1,")).compactMap(\.record)
        #expect(records.first?.fields.map(\.value) == [.text("1"), .null])
    }

    @Test("blank lines are skipped but still counted")
    func blankLines() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("b.csv", "a\n\n1\n\r\n2\n\n")).compactMap(\.record)
        #expect(records.map(\.line) == [3, 5])
    }

    @Test("a row with more or fewer fields than the header is malformed, with its line, and reading goes on")
    func raggedRows() throws {
        let files = try DumpFixtures()
        let items = try readItems(try files.write("r.csv", "a,b,c\n1,2,3\n1,2\n1,2,3,4,5\n7,8,9\n"))
        #expect(items.count == 4)
        #expect(items[1].malformed?.reason == "row has 2 fields, header has 3")
        #expect(items[1].malformed?.line == 3)
        #expect(items[2].malformed?.reason == "row has 5 fields, header has 3")
        #expect(items[3].record?["a"] == .text("7"))
    }

    @Test("invalid UTF-8 makes the row malformed and names the byte")
    func invalidUTF8() throws {
        let files = try DumpFixtures()
        let bytes = Array("a,b\nok,fine\n".utf8) + Array("12,ab".utf8) + [0xFF, 0x41] + Array("\nnext,row\n".utf8)
        let items = try readItems(try files.write("u.csv", bytes))
        #expect(items.count == 3)
        #expect(items[1].malformed?.reason == "invalid UTF-8 at byte 5")
        #expect(items[1].malformed?.line == 3)
        #expect(items[2].record?["a"] == .text("next"))
    }

    @Test("a quote left open at the end of the file is one malformed record at the line it opened")
    func unclosedQuote() throws {
        let files = try DumpFixtures()
        let items = try readItems(try files.write("o.csv", "a,b\n1,2\n3,\"never closed\n4,5\n"))
        #expect(items.count == 2)
        #expect(items[1].malformed?.reason == "unclosed quote")
        #expect(items[1].malformed?.line == 3)
    }

    @Test("text after a closing quote makes the row malformed")
    func textAfterQuote() throws {
        let files = try DumpFixtures()
        let items = try readItems(try files.write("j.csv", "a,b\n\"x\"y,2\n3,4\n"))
        #expect(items[0].malformed?.reason == "text after a closing quote")
        #expect(items[1].record?["b"] == .text("4"))
    }

    @Test("a record longer than the cap is malformed and the next one is read")
    func tooLong() throws {
        let files = try DumpFixtures()
        var limits = Limits()
        limits.maxRecordBytes = 100
        let long = String(repeating: "A", count: 5_000)
        let items = try readItems(try files.write("l.csv", "a,b\n1,\(long)\n2,\"\(long)\"\n3,ok\n"), limits: limits)
        #expect(items.count == 3)
        #expect(items[0].malformed?.reason == "record is longer than 100 bytes")
        #expect(items[1].malformed?.line == 3)
        #expect(items[2].record?["b"] == .text("ok"))
        #expect(items[2].record?.line == 4)
    }

    @Test("a record longer than a read chunk is read whole")
    func longRecordAcrossChunks() throws {
        let files = try DumpFixtures()
        let receipt = String(repeating: "QUJD", count: 700_000)
        let items = try readItems(try files.write("big.csv", "id,receipt\n1,\"\(receipt)\"\n2,\(receipt)\n"))
        #expect(items.compactMap(\.record).map { $0["receipt"] } == [.text(receipt), .text(receipt)])
    }

    @Test("too many fields is malformed")
    func tooManyFields() throws {
        let files = try DumpFixtures()
        var limits = Limits()
        limits.maxFields = 3
        let items = try readItems(try files.write("f.csv", "a,b,c\n1,2,3,4,5,6\n1,2,3\n"), limits: limits)
        #expect(items[0].malformed?.reason == "row has more than 3 fields")
        #expect(items[1].record != nil)
    }

    @Test("an empty file and a header-only file have no records")
    func emptyFiles() throws {
        let files = try DumpFixtures()
        #expect(try readItems(try files.write("empty.csv", "")).isEmpty)
        #expect(try readItems(try files.write("header.csv", "order_id,user_id\n")).isEmpty)
        #expect(try readItems(try files.write("header-nolf.csv", "order_id,user_id")).isEmpty)
    }

    @Test("the same row twice is two records: deduplication is screening's job")
    func duplicatesKept() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("d.csv", "order_id\n5\n5\n")).compactMap(\.record)
        #expect(records.count == 2)
        #expect(records.map(\.line) == [2, 3])
    }

    @Test("a header with an unclosed quote means the file cannot be read")
    func brokenHeader() throws {
        let files = try DumpFixtures()
        let path = try files.write("h.csv", "\"order_id,user_id\n1,2\n")
        let error = try #require(throws: InputError.self) { _ = try readItems(path) }
        #expect(error.code == "bad-header")
    }
}
