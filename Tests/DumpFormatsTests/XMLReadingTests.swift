import DumpFormats
import IAPBasics
import Testing

@Suite("Reading mysqldump --xml dumps")
struct XMLReadingTests {
    static let dump = """
        <?xml version="1.0"?>
        <mysqldump xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <database name="shop">
        \t<table_structure name="iap_orders">
        \t\t<field Field="id" Type="int" Null="NO" Key="PRI" Extra="" />
        \t</table_structure>
        \t<table_data name="iap_orders">
        \t<row>
        \t\t<field name="id">1001</field>
        \t\t<field name="store">apple</field>
        \t\t<field name="note">a &amp; b &lt;c&gt;</field>
        \t\t<field name="refunded_at" xsi:nil="true" />
        \t\t<field name="empty"></field>
        \t</row>
        \t<row>
        \t\t<field name="id">1002</field>
        \t\t<field name="store"><![CDATA[google]]></field>
        \t\t<field name="note">NULL</field>
        \t\t<field name="refunded_at" xsi:nil="true" />
        \t\t<field name="empty"></field>
        \t</row>
        \t</table_data>
        </database>
        </mysqldump>

        """

    @Test("each row's fields are read in order, xsi:nil is null, empty is the empty string")
    func mysqldumpRows() throws {
        let files = try DumpFixtures()
        let path = try files.write("orders.xml", XMLReadingTests.dump)
        let records = try readItems(path).compactMap(\.record)
        #expect(records.count == 2)
        #expect(records[0].fields.map(\.name) == ["id", "store", "note", "refunded_at", "empty"])
        #expect(
            records[0].fields.map(\.value) == [.text("1001"), .text("apple"), .text("a & b <c>"), .null, .text("")])
        #expect(records[1]["store"] == .text("google"))
        #expect(records[1]["note"] == .text("NULL"))
        #expect(records.map(\.location) == [SourceLocation(file: path, row: 1), SourceLocation(file: path, row: 2)])
    }

    @Test("a gzipped XML dump streams the same rows")
    func gzipped() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.writeGzip("orders.xml.gz", XMLReadingTests.dump)).compactMap(\.record)
        #expect(records.map { $0["id"] } == [.text("1001"), .text("1002")])
    }

    @Test("the LOAD XML row shapes are read too: attributes and child elements")
    func otherShapes() throws {
        let files = try DumpFixtures()
        let text =
            #"<resultset><row order_id="1" user_id="u1"/><row><order_id>2</order_id><user_id>u2</user_id></row></resultset>"#
        let records = try readItems(try files.write("rows.xml", text)).compactMap(\.record)
        #expect(records.map { $0.fields.map(\.value) } == [[.text("1"), .text("u1")], [.text("2"), .text("u2")]])
    }

    @Test("xsi:nil written without declaring the xsi prefix is still null")
    func undeclaredPrefix() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("n.xml", #"<d><row><field name="x" xsi:nil="true"/></row></d>"#))
            .compactMap(\.record)
        #expect(records.first?["x"] == .null)
    }

    @Test("an entity bomb is refused at its DOCTYPE, before any of its entities is declared")
    func billionLaughs() throws {
        let files = try DumpFixtures()
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 \"lol\">\n"
        for i in 1...9 { text += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">\n" }
        text += "]>\n<lolz><row><field name=\"x\">&lol9;</field></row></lolz>\n"
        let path = try files.write("bomb.xml", text)
        // Where it stopped, not how long it took: at line 2, the DOCTYPE, before the entities
        // (lines 3 to 12) are declared and long before the reference that would expand them.
        let error = try #require(throws: InputError.self) { _ = try readItems(path) }
        #expect(error.code == "xml-dtd-refused")
        #expect(error.reason.contains("line 2"))
    }

    @Test("an external entity is never loaded: the document is refused")
    func externalEntity() throws {
        let files = try DumpFixtures()
        let text =
            "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><d><row><field name=\"a\">&x;</field></row></d>"
        let error = try #require(throws: InputError.self) { _ = try readItems(try files.write("xxe.xml", text)) }
        #expect(error.code == "xml-dtd-refused")
    }

    @Test("an undeclared entity reference is a broken document")
    func undeclaredEntity() throws {
        let files = try DumpFixtures()
        let path = try files.write("e.xml", "<d><row><field name=\"a\">&x;</field></row></d>")
        let error = try #require(throws: InputError.self) { _ = try readItems(path) }
        #expect(error.code == "xml-malformed")
        #expect(error.reason.contains("Entity 'x' not defined"))
    }

    @Test("a truncated document delivers its complete rows, then an error with line and column")
    func truncated() throws {
        let files = try DumpFixtures()
        let cut = try #require(XMLReadingTests.dump.range(of: "1002"))
        let text = String(XMLReadingTests.dump[..<cut.lowerBound])  // ends inside row 2
        let reader = try DumpReader(path: try files.write("cut.xml", text))
        #expect(try reader.next()?.record?["id"] == .text("1001"))
        let error = try #require(throws: InputError.self) { _ = try reader.next() }
        #expect(error.code == "xml-truncated")
        #expect(error.reason.hasPrefix("XML line 16, column "))
        #expect(error.reason.hasSuffix("element(s) still open (truncated?)"))
    }

    @Test("a document cut inside a tag is malformed with libxml2's words")
    func cutInsideTag() throws {
        let files = try DumpFixtures()
        let path = try files.write(
            "cut.xml", "<d>\n<row><field name=\"a\">1</field></row>\n<row><field name=\"a\">2</fi")
        let reader = try DumpReader(path: path)
        #expect(try reader.next()?.record?["a"] == .text("1"))
        let error = try #require(throws: InputError.self) { _ = try reader.next() }
        #expect(error.code == "xml-malformed")
        #expect(error.reason.hasPrefix("XML line 3, column "))
    }

    @Test("elements nested past the depth cap stop the document")
    func tooDeep() throws {
        let files = try DumpFixtures()
        let path = try files.write(
            "deep.xml", String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500))
        let error = try #require(throws: InputError.self) { _ = try readItems(path) }
        #expect(error.code == "xml-too-deep")
    }

    @Test("a row longer than the cap is malformed and the next row is read")
    func longRow() throws {
        let files = try DumpFixtures()
        var limits = Limits()
        limits.maxRecordBytes = 100
        let text =
            "<d><row><field name=\"r\">\(String(repeating: "A", count: 500))</field></row><row><field name=\"r\">ok</field></row></d>"
        let items = try readItems(try files.write("long.xml", text), limits: limits)
        #expect(items.first?.malformed?.reason == "row is longer than 100 bytes")
        #expect(items.first?.malformed?.location.position == .row(1))
        #expect(items.last?.record?["r"] == .text("ok"))
    }

    @Test("a field holding an element is malformed")
    func nestedElement() throws {
        let files = try DumpFixtures()
        let items = try readItems(try files.write("n.xml", "<d><row><field name=\"r\"><b>x</b></field></row></d>"))
        #expect(items.first?.malformed?.reason == "field \"r\" holds an element <b>")
    }

    @Test("an empty or whitespace-only XML file has no records")
    func empty() throws {
        let files = try DumpFixtures()
        #expect(try readItems(try files.write("e.xml", "")).isEmpty)
        #expect(try readItems(try files.write("w.xml", "  \n\n")).isEmpty)
        #expect(try readItems(try files.write("r.xml", "<mysqldump></mysqldump>")).isEmpty)
    }

    @Test(
        "rows in mysqldump's strict form, read without libxml2, are the rows libxml2 reads: references, null, empty, non-ASCII, tabs and newlines in text; an error after them is at the same place"
    )
    func strictRowsAsLibxml2ReadsThem() throws {
        func row(_ id: Int, _ fields: String) -> String {
            "\t<row>\n\t\t<field name=\"order_id\">ORD-\(id)</field>\n\(fields)\t</row>\n"
        }
        let rows = [
            row(1, "\t\t<field name=\"note\">a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;</field>\n"),
            row(2, "\t\t<field name=\"note\">&#233;&#xE9;&#x1F600;&#13;&#10;&#9;x</field>\n"),
            row(
                3,
                "\t\t<field name=\"gone\" xsi:nil=\"true\" />\n\t\t<field name=\"kept\" xsi:nil=\"false\">v</field>\n"),
            row(4, "\t\t<field name=\"empty\"></field><field name=\"closed\" />\n"),
            row(5, "\t\t<field name=\"caf\u{E9}\">\u{65E5}\u{672C} \t tab\nnext line</field>\n"),
            // Not strict (a comment, an attribute on the row): libxml2 reads these.
            "\t<row><!-- c --><field name=\"order_id\">ORD-6</field></row>\n",
            "\t<row n=\"1\"><field name=\"order_id\">ORD-7</field></row>\n",
            row(8, "\t\t<field name=\"note\">   </field>\n"),
            "<row><field name=\"order_id\">ORD-9</field></row><row><field name=\"order_id\">ORD-10</field></row>",
        ]
        let head = "<?xml version=\"1.0\"?>\n<mysqldump xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n"
        for tail in [
            "</mysqldump>\n", "\t<row><field name=\"order_id\">x</feld></row>\n</mysqldump>\n", "  <oops &nbsp; />",
        ] {
            let bytes = Array((head + rows.joined() + tail).utf8)
            for buffers in [ReadBuffers.standard, .small] {
                func items(strict: Bool) -> [String] {
                    var out: [String] = []
                    do {
                        let reader = try DumpReader(
                            bytes: bytes, name: "o.xml", buffers: buffers, xmlStrictRows: strict)
                        while let item = try reader.next() { out.append(String(describing: item)) }
                    } catch {
                        out.append("\(error.code): \(error.reason.prefix { $0 != ":" })")
                    }
                    return out
                }
                let fast = items(strict: true)
                #expect(fast == items(strict: false))
                #expect(fast.count == (tail.hasPrefix("<") ? 10 : 11), "\(fast)")
            }
        }
    }
}
