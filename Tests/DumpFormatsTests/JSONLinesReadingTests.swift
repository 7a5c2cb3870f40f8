import DumpFormats
import IAPBasics
import Testing

@Suite("Reading JSON Lines and mongoexport dumps")
struct JSONLinesReadingTests {
    @Test("each line's members become fields in order, numbers keep their exact text")
    func basicLines() throws {
        let files = try DumpFixtures()
        let text = #"{"orderId":"A1","amount":27.990,"big":12345678901234567890,"ok":true,"none":null}"# + "\n"
        let record = try #require(try readItems(try files.write("o.jsonl", text)).first?.record)
        #expect(record.fields.map(\.name) == ["orderId", "amount", "big", "ok", "none"])
        #expect(record["amount"] == .text("27.990"))
        #expect(record["big"] == .text("12345678901234567890"))
        #expect(record["ok"] == .text("true"))
        #expect(record["none"] == .null)
        #expect(record.line == 1)
    }

    @Test("mongoexport dates are timestamps in every form: ISO text, epoch ms, $numberLong")
    func mongoDates() throws {
        let files = try DumpFixtures()
        let text = """
            {"a":{"$date":"2024-03-01T12:00:00Z"}}
            {"a":{"$date":{"$numberLong":"1709294400000"}}}
            {"a":{"$date":1709294400123}}
            {"a":{"$date":"not a date"}}
            """
        let values = try readItems(try files.write("m.json", text)).compactMap { $0.record?["a"] }
        let noon = try #require(Timestamp.parse("2024-03-01T12:00:00Z"))
        #expect(values[0] == .timestamp(noon))
        #expect(values[1] == .timestamp(noon))
        #expect(values[2] == .timestamp(try #require(Timestamp(millis: 1_709_294_400_123))))
        #expect(values[3] == .text("not a date"))
    }

    @Test("mongoexport number and id wrappers become their text")
    func mongoWrappers() throws {
        let files = try DumpFixtures()
        let text =
            #"{"_id":{"$oid":"65e1c2f0a1b2c3d4e5f60718"},"n":{"$numberLong":"27990000"},"q":{"$numberInt":"1"},"p":{"$numberDecimal":"27.99"},"d":{"$numberDouble":"1.5"}}"#
        let record = try #require(try readItems(try files.write("w.ndjson", text)).first?.record)
        #expect(
            record.fields.map(\.value) == [
                .text("65e1c2f0a1b2c3d4e5f60718"), .text("27990000"), .text("1"), .text("27.99"), .text("1.5"),
            ])
    }

    @Test("a receipt stored as an object or array becomes its compact JSON text")
    func nestedValues() throws {
        let files = try DumpFixtures()
        let text = #"{"receipt": {"data": "{\"orderId\":\"GPA.1\"}", "signature": "c2ln"}, "tags": [1, "x"]}"#
        let record = try #require(try readItems(try files.write("n.jsonl", text)).first?.record)
        #expect(record["receipt"] == .text(#"{"data":"{\"orderId\":\"GPA.1\"}","signature":"c2ln"}"#))
        #expect(record["tags"] == .text(#"[1,"x"]"#))
    }

    @Test("blank lines and CRLF line ends are fine, and line numbers count every line")
    func blankLinesAndCRLF() throws {
        let files = try DumpFixtures()
        let records = try readItems(try files.write("b.jsonl", "{\"a\":1}\r\n\r\n   \n{\"a\":2}")).compactMap(\.record)
        #expect(records.map(\.line) == [1, 4])
        #expect(records.map(\.ordinal) == [1, 2])
    }

    @Test("a line that is an array or garbage is malformed with its line and byte, and reading goes on")
    func badLines() throws {
        let files = try DumpFixtures()
        let text = "{\"a\":1}\n[1,2]\n  {\"a\": tru}\n\"text\"\n{\"a\":2}\n"
        let items = try readItems(try files.write("g.jsonl", text))
        #expect(items.count == 5)
        #expect(items[1].malformed?.reason == "line is an array, not a JSON object")
        #expect(items[1].malformed?.line == 2)
        #expect(items[2].malformed?.reason == "bad JSON at byte 11: misspelt literal, expected true")
        #expect(items[2].malformed?.line == 3)
        #expect(items[3].malformed?.reason == "line is a string, not a JSON object")
        #expect(items[4].record?["a"] == .text("2"))
    }

    @Test("a line longer than the cap is malformed and the next line is read")
    func tooLong() throws {
        let files = try DumpFixtures()
        var limits = Limits()
        limits.maxRecordBytes = 64
        let text = "{\"r\":\"\(String(repeating: "A", count: 3_000_000))\"}\n{\"r\":\"ok\"}\n"
        let items = try readItems(try files.write("l.jsonl", text), limits: limits)
        #expect(items.count == 2)
        #expect(items[0].malformed?.reason == "line is longer than 64 bytes")
        #expect(items[1].record?["r"] == .text("ok"))
        #expect(items[1].record?.line == 2)
    }

    @Test("invalid UTF-8 inside a line is malformed")
    func invalidUTF8() throws {
        let files = try DumpFixtures()
        let bytes = Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}\n".utf8)
        let items = try readItems(try files.write("u.jsonl", bytes))
        #expect(items.first?.malformed?.reason.hasPrefix("bad JSON at byte 6: ") == true)
    }

    @Test("an empty JSON Lines file has no records")
    func empty() throws {
        let files = try DumpFixtures()
        #expect(try readItems(try files.write("e.jsonl", "")).isEmpty)
        #expect(try readItems(try files.write("s.jsonl", "\n\n  \n")).isEmpty)
    }
}
