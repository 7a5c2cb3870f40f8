import Decompression
import DumpFormats
import Foundation
import IAPBasics
import Testing

@Suite("Recognising dump formats")
struct FormatDetectionTests {
    @Test(
        "the extension decides, a trailing .gz aside",
        arguments: [
            ("a.csv", DumpFormat.csv), ("a.CSV.gz", .csv), ("dir.x/a.tsv", .tsv), ("a.jsonl", .jsonLines),
            ("a.ndjson.gz", .jsonLines), ("a.json", .jsonLines), ("a.xml.gz", .xml),
        ])
    func byExtension(name: String, format: DumpFormat) {
        #expect(DumpFormat.byExtension(of: name) == format)
    }

    @Test("other names have no format by extension", arguments: ["a", "a.gz", "a.txt", "dir.csv/a", "a.csv.bak"])
    func unknownExtension(name: String) {
        #expect(DumpFormat.byExtension(of: name) == nil)
    }

    @Test("without a known extension the content decides")
    func byContent() throws {
        let files = try DumpFixtures()
        let cases: [(String, DumpFormat)] = [
            ("\n  <d><row><field name=\"a\">1</field></row></d>", .xml),
            ("  {\"a\":1}\n", .jsonLines),
            ("a,b\n1,2\n", .csv),
            ("a\tb\n1\t2\n", .tsv),
            ("a\tb,c\n1\t2\n", .csv),
            ("", .csv),
        ]
        for (index, (content, format)) in cases.enumerated() {
            let reader = try DumpReader(path: try files.write("dump\(index)", content))
            #expect(reader.format == format)
        }
    }

    @Test("gzip is found by magic bytes even when the name says plain CSV")
    func gzipWhateverTheName() throws {
        let files = try DumpFixtures()
        let reader = try DumpReader(path: try files.writeGzip("orders.csv", "order_id\n42\n"))
        #expect(reader.compression == .gzip)
        #expect(try reader.next()?.record?["order_id"] == .text("42"))
    }

    @Test("a gzipped dump without an extension is sniffed after decompression")
    func gzipSniffed() throws {
        let files = try DumpFixtures()
        let reader = try DumpReader(path: try files.writeGzip("export", "{\"order_id\":\"7\"}\n"))
        #expect(reader.format == .jsonLines)
        #expect(try reader.next()?.record?["order_id"] == .text("7"))
    }

    @Test("a file that cannot be opened is an input error, not an empty dump")
    func missing() throws {
        let files = try DumpFixtures()
        let error = try #require(throws: InputError.self) {
            _ = try DumpReader(path: files.directory.appendingPathComponent("missing.csv").path)
        }
        #expect(error.code == "cannot-open")
    }

    @Test("a corrupt gzip dump stops reading with an input error")
    func corruptGzip() throws {
        let files = try DumpFixtures()
        let text = "order_id\n" + String(repeating: "1234567\n", count: 20_000)
        var bytes = try #require(GzipEncoder.compress(Array(text.utf8)))
        bytes.removeLast(bytes.count / 2)
        let path = try files.write("cut.csv.gz", bytes)
        let error = try #require(throws: InputError.self) { _ = try readItems(path) }
        #expect(error.code == "gzip-truncated")
    }

    @Test("a gzip bomb named like a CSV dump stops with an input error, not exhausted memory")
    func gzipBomb() throws {
        let files = try DumpFixtures()
        let member = try #require(GzipEncoder.compress([UInt8](repeating: 0, count: 8 << 20), level: 9))
        let path = try files.write("orders.csv.gz", Array([[UInt8]](repeating: member, count: 25).joined()))
        var limits = Limits()
        limits.maxDecompressedBytes = 16 << 20
        let error = try #require(throws: InputError.self) { _ = try readItems(path, limits: limits) }
        #expect(error.code == "decompression-limit")
    }

    @Test("the raw observer sees the stored bytes of a gzipped dump")
    func rawObserver() throws {
        let files = try DumpFixtures()
        let path = try files.writeGzip("o.csv.gz", "order_id\n1\n2\n")
        var seen = 0
        let reader = try DumpReader(path: path, rawObserver: { seen += $0.count })
        while try reader.next() != nil {}
        let stored = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(seen == stored)
        #expect(reader.rawBytesRead == Int64(stored))
        #expect(reader.itemCount == 2)
    }
}
