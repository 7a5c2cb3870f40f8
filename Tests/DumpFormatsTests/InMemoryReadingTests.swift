import Decompression
import DumpFormats
import IAPBasics
import Testing

@Suite("Reading dumps from memory")
struct InMemoryReadingTests {
    /// Every item of the dump `bytes`, read from memory under `name`.
    func memoryItems(
        bytes: [UInt8], name: String, limits: Limits = .standard,
        buffers: ReadBuffers = .standard
    ) throws -> [DumpItem] {
        let reader = try DumpReader(bytes: bytes, name: name, limits: limits, buffers: buffers)
        var items: [DumpItem] = []
        while let item = try reader.next() { items.append(item) }
        return items
    }

    @Test(
        "bytes in memory give the items, format and compression the same file gives",
        arguments: [
            ("orders.csv", "order_id,amount\n1,4.99\n\"2,\"x\n\n3,\"5\"\"\"\n"),
            ("orders.tsv", "order_id\tnote\n1\ta\\tb\n"),
            ("orders.jsonl", "{\"order_id\":\"1\"}\nnot json\n{\"order_id\":{\"$numberLong\":\"2\"}}\n"),
            (
                "orders.xml",
                "<mysqldump><database><table_data name=\"o\"><row><field name=\"order_id\">1</field></row>"
                    + "<row><field name=\"order_id\" xsi:nil=\"true\" /></row></table_data></database></mysqldump>\n"
            ),
            ("export", "a\tb\n1\t2\n"),
        ])
    func sameAsFile(name: String, text: String) throws {
        let files = try DumpFixtures()
        for content in [Array(text.utf8), try #require(GzipEncoder.compress(Array(text.utf8)))] {
            let path = try files.write(name, content)
            let fromFile = try DumpReader(path: path)
            let fromMemory = try DumpReader(bytes: content, name: path)
            #expect(fromMemory.format == fromFile.format)
            #expect(fromMemory.compression == fromFile.compression)
            let expected = try readItems(path)
            #expect(try memoryItems(bytes: content, name: path) == expected)
            // Buffers change speed, not what is read; small limits make records too long.
            for buffers in [ReadBuffers.small, ReadBuffers(chunkBytes: 64, gzipInputBytes: 64, prefetchChunks: 0)] {
                #expect(try memoryItems(bytes: content, name: path, buffers: buffers) == expected)
                var tight = Limits.small
                tight.maxRecordBytes = 20
                #expect(
                    try memoryItems(bytes: content, name: path, limits: tight, buffers: buffers)
                        == (try readItems(path, limits: tight)))
            }
        }
    }

    /// Every item with where it starts.
    func itemsAndStarts(_ bytes: [UInt8], name: String, buffers: ReadBuffers) throws -> [String] {
        let reader = try DumpReader(bytes: bytes, name: name, buffers: buffers)
        var out: [String] = []
        while let item = try reader.next() { out.append("\(reader.lastItemStart ?? -1) \(item)") }
        return out
    }

    @Test(
        "inflated chunks read where they lie: records across chunks, and longer than the room before one, read alike",
        arguments: ["orders.csv", "orders.jsonl", "orders.xml"])
    func lentChunks(name: String) throws {
        // Receipts of a few bytes to 20 KB: most cross a 64-byte chunk, some are longer than
        // the 4 KB a lent chunk keeps free before its bytes.
        let receipts = (0..<60).map { i in String(repeating: "r\(i % 10)", count: (i * 977) % 10_000 + 1) }
        let text: String
        switch name {
        case "orders.csv":
            text = "order_id,receipt\n" + receipts.enumerated().map { "\($0),\($1)\n" }.joined()
        case "orders.jsonl":
            text = receipts.enumerated().map { "{\"order_id\":\"\($0)\",\"receipt\":\"\($1)\"}\n" }.joined()
        default:
            text =
                "<?xml version=\"1.0\"?>\n<mysqldump><database name=\"d\"><table_data name=\"o\">\n"
                + receipts.enumerated().map {
                    "\t<row>\n\t\t<field name=\"order_id\">\($0)</field>\n\t\t<field name=\"receipt\">\($1)</field>\n\t</row>\n"
                }.joined() + "</table_data></database></mysqldump>\n"
        }
        let gzip = try #require(GzipEncoder.compress(Array(text.utf8)))
        // Named alike: the name is in every location.
        let plain = try itemsAndStarts(Array(text.utf8), name: name + ".gz", buffers: .standard)
        #expect(plain.count == 60)
        for buffers in [
            ReadBuffers.standard, ReadBuffers(chunkBytes: 64, gzipInputBytes: 64, prefetchChunks: 2),
            ReadBuffers(chunkBytes: 4_096, gzipInputBytes: 512, prefetchChunks: 1),
        ] {
            #expect(try itemsAndStarts(gzip, name: name + ".gz", buffers: buffers) == plain)
        }
    }

    @Test("a corrupt gzip in memory stops with the error the file gives, naming the input")
    func corruptGzip() throws {
        let good = try #require(GzipEncoder.compress(Array("order_id\n1\n".utf8)))
        let bad = Array(good.dropLast(4)) + [0, 0, 0, 0]
        let error = try #require(throws: InputError.self) { _ = try memoryItems(bytes: bad, name: "night.csv.gz") }
        #expect(error.code == "gzip-corrupt")
        #expect(error.path == "night.csv.gz")
    }
}
