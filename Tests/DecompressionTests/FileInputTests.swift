import Decompression
import Testing

@Suite("Opening input files")
struct FileInputTests {
    @Test("a missing file cannot be opened, and the error names it")
    func missingFile() throws {
        let files = try TemporaryFiles()
        let path = files.directory.appendingPathComponent("nope.csv").path
        let error = try #require(throws: InputError.self) { _ = try InputOpener.open(path: path) }
        #expect(error.code == "cannot-open")
        #expect(error.path == path)
        #expect(error.reason.contains("No such file"))
    }

    @Test("a directory is not a dump")
    func directory() throws {
        let files = try TemporaryFiles()
        let error = try #require(throws: InputError.self) { _ = try InputOpener.open(path: files.directory.path) }
        #expect(error.code == "cannot-open")
        #expect(error.reason.contains("directory"))
    }

    @Test("the observer sees every raw byte of the file, compressed as stored")
    func observerSeesRawBytes() throws {
        let files = try TemporaryFiles()
        let compressed = try #require(GzipEncoder.compress(sampleText(lines: 50_000)))
        let path = try files.write("raw.gz", compressed)
        var seen: [UInt8] = []
        let input = try InputOpener.open(path: path, observer: { seen.append(contentsOf: $0) })
        _ = try readAll(input.stream)
        #expect(seen == compressed)
        #expect(input.rawBytesRead == Int64(compressed.count))
    }

    @Test("the observer of a plain file sees exactly what is read")
    func observerPlain() throws {
        let files = try TemporaryFiles()
        let text = sampleText(lines: 1_000)
        var count = 0
        let input = try InputOpener.open(path: try files.write("plain.csv", text), observer: { count += $0.count })
        #expect(try readAll(input.stream) == text)
        #expect(count == text.count)
    }
}
