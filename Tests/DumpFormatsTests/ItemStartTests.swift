import Decompression
import DumpFormats
import Foundation
import IAPBasics
import Testing

/// `explain` reads one record of a dump again where `screen` saw it: from the file's first
/// record (the header, the XML prologue) and then the file from that record's start on. These
/// tests read every record of a dump so, in every layout, plain and gzipped in several members.
@Suite("A dump's records read again from where each starts")
struct ItemStartTests {
    static let csv = """
        order_id,user_id,receipt,created_at
        A1,u1,"line one
        line two",2024-03-01T10:00:00Z

        A2,u2,plain,2024-03-01T10:00:01Z
        A3,u3,"a ""quoted"" one",2024-03-01T10:00:02Z
        A4,u4,,2024-03-01T10:00:03Z

        """

    static let jsonLines = """
        {"order_id": "A1", "user_id": "u1", "created_at": "2024-03-01T10:00:00Z"}

        {"order_id": "A2", "user_id": "u2", "created_at": {"$date": "2024-03-01T10:00:01Z"}}
        not json at all
        {"order_id": "A4", "user_id": "u4", "created_at": "2024-03-01T10:00:03Z"}

        """

    static let xml = """
        <?xml version="1.0"?>
        <mysqldump xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <database name="shop">
        \t<table_data name="orders">
        \t<row>
        \t\t<field name="order_id">A1</field>
        \t\t<field name="note">a &amp; b</field>
        \t</row>
        \t<row>
        \t\t<field name="order_id">A2</field>
        \t\t<field name="note">&lt;two&gt;</field>
        \t</row>
        \t<row>
        \t\t<field name="order_id">A3</field>
        \t\t<field name="note"></field>
        \t</row>
        \t</table_data>
        \t<table_data name="more">
        \t<row>
        \t\t<field name="order_id">A4</field>
        \t\t<field name="note" xsi:nil="true" />
        \t</row>
        \t</table_data>
        </database>
        </mysqldump>

        """

    @Test(
        "every record of CSV, TSV, JSON Lines and XML is found again from its start, plain or in gzip members",
        arguments: ["orders.csv", "orders.tsv", "orders.jsonl", "orders.xml", "bom.csv"])
    func readAgain(name: String) throws {
        let text =
            switch name {
            case "orders.tsv": Self.csv.replacingOccurrences(of: ",", with: "\t")
            case "orders.jsonl": Self.jsonLines
            case "orders.xml": Self.xml
            case "bom.csv": "\u{FEFF}" + Self.csv
            default: Self.csv
            }
        let files = try DumpFixtures()
        let content = Array(text.utf8)
        // Members cut anywhere, not at records: a member start is only where inflating may begin.
        let cuts = [0, 7, content.count / 3, content.count / 2 + 1, content.count]
        var gzip: [UInt8] = []
        var members: [GzipCheckpoints.Point] = []
        for (from, to) in zip(cuts, cuts.dropFirst()) {
            members.append(.init(compressedOffset: Int64(gzip.count), decompressedOffset: Int64(from)))
            gzip += try #require(GzipEncoder.compress(Array(content[from..<to])))
        }
        for (path, points) in [
            (try files.write(name, content), [GzipCheckpoints.Point.start]),
            (try files.write(name + ".gz", gzip), members),
        ] {
            let reader = try DumpReader(path: path)
            var items: [(item: DumpItem, start: Int64)] = []
            while let item = try reader.next() { items.append((item, try #require(reader.lastItemStart))) }
            #expect(items.count == 4)
            let prefixEnd = Int(items[1].start)
            for (k, seen) in items.enumerated() {
                let again: DumpItem?
                if k == 0 {
                    again = try DumpReader(path: path).next()
                } else {
                    let member = try #require(points.last { $0.decompressedOffset <= seen.start })
                    let rest = try ResumedInput.open(path: path, at: seen.start, member: member, limits: .standard)
                    let reader = try DumpReader(bytes: Array(content[..<prefixEnd]) + drain(rest), name: path)
                    _ = try reader.next()
                    again = try reader.next()
                }
                #expect(again?.fields == seen.item.fields, "item \(k + 1) of \(path)")
            }
        }
    }

    @Test(
        "an XML row in another shape than mysqldump's (libxml2 reads it) has no known start; the strict rows keep theirs"
    )
    func libxmlRows() throws {
        let files = try DumpFixtures()
        let text = Self.xml.replacingOccurrences(
            of:
                "\t<row>\n\t\t<field name=\"order_id\">A2</field>\n\t\t<field name=\"note\">&lt;two&gt;</field>\n\t</row>",
            with: "\t<row order_id=\"A2\" note=\"attributes\"/>")
        let reader = try DumpReader(path: try files.write("orders.xml", text))
        var starts: [Int64?] = []
        while try reader.next() != nil { starts.append(reader.lastItemStart) }
        #expect(starts.count == 4)
        #expect(starts[1] == nil)
        #expect(starts.enumerated().allSatisfy { $0.offset == 1 || $0.element != nil })
    }

    @Test("a gzip file's member starts are noted a megabyte apart, and each inflates alone")
    func memberStarts() throws {
        let files = try DumpFixtures()
        let line = String(repeating: "x", count: 99) + "\n"
        let parts = (0..<3).map { k in String(repeating: line, count: 12_000) + "member \(k)\n" }
        var gzip: [UInt8] = []
        for p in parts { gzip += try #require(GzipEncoder.compress(Array(p.utf8))) }
        let path = try files.write("lines.txt.gz", gzip)
        let opened = try InputOpener.open(path: path)
        _ = try drain(opened.stream)
        let points = try #require(opened.checkpoints).points
        #expect(points.count == 3)
        for (k, point) in points.enumerated() {
            let stream = try ResumedInput.open(
                path: path, at: point.decompressedOffset, member: point, limits: .standard)
            #expect(String(decoding: try drain(stream), as: UTF8.self) == parts[k...].joined())
        }
        let fromMiddle = try ResumedInput.open(
            path: path, at: points[1].decompressedOffset + 5, member: points[1], limits: .standard)
        #expect(try drain(fromMiddle).count == parts[1...].joined().utf8.count - 5)
    }

    @Test("a point that is no member's start is an input error, not a crash")
    func notAMember() throws {
        let files = try DumpFixtures()
        let path = try files.writeGzip("a.csv.gz", ItemStartTests.csv)
        #expect(throws: InputError.self) {
            let s = try ResumedInput.open(
                path: path, at: 20, member: .init(compressedOffset: 3, decompressedOffset: 0), limits: .standard)
            _ = try drain(s)
        }
        #expect(throws: InputError.self) {
            _ = try ResumedInput.open(
                path: path, at: 5, member: .init(compressedOffset: 0, decompressedOffset: 9), limits: .standard)
        }
    }

    private func drain(_ stream: ByteStream) throws -> [UInt8] {
        var out: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while case let n = try stream.read(into: buffer), n > 0 {
            out += UnsafeRawBufferPointer(rebasing: buffer[..<n])
        }
        return out
    }
}

extension DumpItem {
    fileprivate var fields: [DumpField]? {
        if case .record(let r) = self { return r.fields }
        return nil
    }
}
