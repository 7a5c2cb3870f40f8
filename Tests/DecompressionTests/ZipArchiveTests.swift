import Decompression
import IAPBasics
import Testing

@Suite("Reading zip archives")
struct ZipArchiveTests {
    func archive(_ entries: [(String, [UInt8], ZipWriter.Method)]) -> [UInt8] {
        let zip = ZipWriter()
        for (name, content, method) in entries { zip.add(name, content, method: method) }
        return zip.finish()
    }

    @Test("stored and deflated entries read back as the bytes that went in, names listed")
    func roundTrip() throws {
        let files = try TemporaryFiles()
        let big = sampleText(lines: 30_000)
        let small = Array("Order Number,SKU ID\nGPA.1,gems\n".utf8)
        let path = try files.write(
            "salesreport_202403.zip",
            archive([("sales.csv", big, .deflated), ("notes/", [], .stored), ("small.csv", small, .stored)]))
        let zip = try ZipArchive(path: path)
        #expect(zip.entries.map(\.name) == ["sales.csv", "notes/", "small.csv"])
        #expect(zip.entries[1].isDirectory)
        #expect(try readAll(try zip.open(zip.entries[0])) == big)
        #expect(try readAll(try zip.open(zip.entries[2])) == small)
        #expect(try readAll(try zip.open(zip.entries[1])) == [])
        #expect(ZipArchive.isZip(Array(archive([]).prefix(4))))
    }

    @Test(
        "an entry larger than the input chunk, read into large buffers, comes back whole (partial reads are counted right)"
    )
    func largeEntryLargeBuffers() throws {
        let files = try TemporaryFiles()
        // Counters with a scrambled tail compress poorly: each 256 KiB of input inflates to
        // less than the 1 MiB buffer, so most reads fill it only in part.
        var text: [UInt8] = []
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<120_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text.append(contentsOf: "GPA.\(i),\(x),\(x >> 7)\n".utf8)
        }
        let zip = try ZipArchive(path: try files.write("big.zip", archive([("big.csv", text, .deflated)])))
        #expect(try readAll(try zip.open(zip.entries[0]), chunk: 1 << 20) == text)
    }

    @Test("a changed byte in an entry fails its CRC-32 check, naming the entry")
    func crcChecked() throws {
        let files = try TemporaryFiles()
        var bytes = archive([("sales.csv", Array("a,b\n1,2\n".utf8), .stored)])
        bytes[30 + "sales.csv".utf8.count + 2] ^= 0x01
        let zip = try ZipArchive(path: try files.write("bad.zip", bytes))
        #expect(throws: InputError.self) { try readAll(try zip.open(zip.entries[0])) }
        do {
            _ = try readAll(try zip.open(zip.entries[0]))
        } catch {
            #expect(error.code == "zip-corrupt")
            #expect(error.reason.contains("sales.csv"))
            #expect(error.reason.contains("CRC-32"))
        }
    }

    @Test("cut-short, foreign and corrupt archives are refused with a reason")
    func brokenArchives() throws {
        let files = try TemporaryFiles()
        let good = archive([("sales.csv", sampleText(lines: 2_000), .deflated)])
        #expect(throws: InputError.self) {
            try ZipArchive(path: try files.write("cut.zip", Array(good.prefix(good.count / 2))))
        }
        #expect(throws: InputError.self) {
            try ZipArchive(path: try files.write("text.zip", Array("not a zip at all".utf8)))
        }
        // Deflate data damaged in the middle: corrupt, or a CRC failure.
        var damaged = good
        for i in 200..<260 { damaged[i] = 0xFF }
        let zip = try ZipArchive(path: try files.write("damaged.zip", damaged))
        #expect(throws: InputError.self) { try readAll(try zip.open(zip.entries[0])) }
    }

    @Test("ZIP64 markers and unknown methods are refused, not misread")
    func unsupported() throws {
        let files = try TemporaryFiles()
        var bytes = archive([("a.csv", Array("x\n".utf8), .stored)])
        // The end record's entry count set to the ZIP64 marker.
        bytes[bytes.count - 12] = 0xFF
        bytes[bytes.count - 11] = 0xFF
        bytes[bytes.count - 14] = 0xFF
        bytes[bytes.count - 13] = 0xFF
        #expect(throws: InputError.self) { try ZipArchive(path: try files.write("z64.zip", bytes)) }
        var bzip = archive([("a.csv", Array("x\n".utf8), .stored)])
        // Method 12 (bzip2) in the central directory.
        let central = bzip.count - 22 - (46 + 5)
        bzip[central + 10] = 12
        let zip = try ZipArchive(path: try files.write("bz.zip", bzip))
        do {
            _ = try zip.open(zip.entries[0])
            Issue.record("method 12 should be refused")
        } catch {
            #expect(error.code == "zip-unsupported")
        }
    }

    @Test("the entry count, size and ratio caps of Limits apply to zip entries")
    func caps() throws {
        let files = try TemporaryFiles()
        var limits = Limits()
        limits.maxZipEntries = 2
        let three = archive([("a", [1], .stored), ("b", [2], .stored), ("c", [3], .stored)])
        #expect(throws: InputError.self) { try ZipArchive(path: try files.write("many.zip", three), limits: limits) }

        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let bomb = try files.write("bomb.zip", archive([("zeros.csv", zeros, .deflated)]))
        var ratio = Limits()
        ratio.ratioGraceBytes = 1 << 20
        ratio.maxCompressionRatio = 50
        let zip = try ZipArchive(path: bomb, limits: ratio)
        do {
            _ = try readAll(try zip.open(zip.entries[0]), chunk: 64 << 10)
            Issue.record("the bomb should be stopped")
        } catch {
            #expect(error.code == "decompression-limit")
            #expect(error.reason.contains("zeros.csv"))
        }
        var size = Limits()
        size.maxDecompressedBytes = 1 << 20
        let capped = try ZipArchive(path: bomb, limits: size)
        #expect(throws: InputError.self) { try capped.open(capped.entries[0]) }
    }
}

@Suite("Reading zip archives from memory")
struct ZipArchiveInMemoryTests {
    @Test("an archive in memory lists and reads what the same file does")
    func sameAsFile() throws {
        let writer = ZipWriter()
        writer.add("sales.csv", sampleText(lines: 2_000), method: .deflated)
        writer.add("notes/", [], method: .stored)
        writer.add("small.csv", Array("Order Number\nGPA.1\n".utf8), method: .stored)
        let bytes = writer.finish()
        let files = try TemporaryFiles()
        let fromFile = try ZipArchive(path: try files.write("a.zip", bytes))
        let fromMemory = try ZipArchive(bytes: bytes, name: "a.zip")
        #expect(fromMemory.entries == fromFile.entries)
        #expect(fromMemory.path == "a.zip")
        for (a, b) in zip(fromMemory.entries, fromFile.entries) {
            #expect(try readAll(try fromMemory.open(a)) == (try readAll(try fromFile.open(b))))
        }
    }

    @Test("offsets that point outside the bytes are corrupt archives, not reads past the end")
    func lyingOffsets() throws {
        let writer = ZipWriter()
        writer.add("a.csv", Array("x\n".utf8), method: .stored)
        let good = writer.finish()
        let end = good.count - 22
        // The central directory's offset (end record +16) and the entry's local header
        // offset (central entry +42), each pointed far past the end.
        var directoryPastEnd = good
        directoryPastEnd[end + 16] = 0xF0
        directoryPastEnd[end + 19] = 0x7F
        #expect(throws: InputError.self) { try ZipArchive(bytes: directoryPastEnd, name: "d.zip") }
        var headerPastEnd = good
        let central = Int(good[end + 16]) | Int(good[end + 17]) << 8
        headerPastEnd[central + 42] = 0xF0
        headerPastEnd[central + 45] = 0x7F
        let archive = try ZipArchive(bytes: headerPastEnd, name: "h.zip")
        let error = try #require(throws: InputError.self) { _ = try archive.open(archive.entries[0]) }
        #expect(error.code == "zip-corrupt")
    }
}
