import DumpFormats
import Testing

@Suite("Reading TSV dumps")
struct TSVReadingTests {
    @Test("tab-separated rows are read like CSV, with \\N as null")
    func basicRows() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("o.tsv", "order_id\tnote\tuser_id\n1\ta, b\t\\N\n")).compactMap(
            \.record)
        #expect(records.first?.fields.map(\.value) == [.text("1"), .text("a, b"), .null])
    }

    @Test("PostgreSQL and mysql --batch backslash escapes are decoded in unquoted fields")
    func backslashEscapes() throws {
        let files = try DumpFixtures()
        let text = "id\treceipt\n1\t{\"data\":\"{\\\\\"orderId\\\\\":1}\"}\n2\tline\\none\\ttab\\\\slash\n"
        let records = try readItems(try files.write("e.tsv", text)).compactMap(\.record)
        #expect(records[0]["receipt"] == .text("{\"data\":\"{\\\"orderId\\\":1}\"}"))
        #expect(records[1]["receipt"] == .text("line\none\ttab\\slash"))
    }

    @Test("a quoted TSV field keeps tabs and backslashes as they are")
    func quotedField() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("q.tsv", "a\tb\n\"x\ty\\n\"\t2\n")).compactMap(\.record)
        #expect(records.first?["a"] == .text("x\ty\\n"))
    }

    @Test("a file without a known extension whose header has tabs and no commas is TSV")
    func sniffed() throws {
        let files = try DumpFixtures()
        let path = try files.write("export.txt", "order_id\tuser_id\n1\tu, with comma\n")
        let reader = try DumpReader(path: path)
        #expect(reader.format == .tsv)
        #expect(try reader.next()?.record?["user_id"] == .text("u, with comma"))
    }
}
