import DumpFormats
import Testing

@Suite("CSV records that straddle read chunks")
struct CSVChunkBoundaryTests {
    /// A small deterministic generator, so a failure can be replayed.
    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % bound
        }
    }

    /// Cells with every quoting case, each written as RFC 4180 says.
    private func cell(_ g: inout Generator) -> (written: String, value: DumpValue) {
        switch g.next(6) {
        case 0: return ("", .null)
        case 1: return ("\"\"", .text(""))
        case 2:
            let text = String(repeating: "x", count: g.next(40))
            return (text.isEmpty ? "\"\"" : text, .text(text))
        case 3:
            let text = "a,b \"quoted\"\nnext line " + String(g.next(1_000))
            return ("\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"", .text(text))
        case 4:
            let text = String(repeating: "QUJD", count: 1 + g.next(4_000))
            return (text, .text(text))
        default:
            let text = "ünïcödé " + String(g.next(100))
            return ("\"\(text)\"", .text(text))
        }
    }

    @Test(
        "every record of a multi-megabyte CSV comes back exactly, with its line, through big or small buffers",
        arguments: [ReadBuffers.standard, .small])
    func roundTrip(_ buffers: ReadBuffers) throws {
        var g = Generator(state: 42)
        var text = "a,b,c\r\n"
        var expected: [(line: Int, values: [DumpValue])] = []
        var line = 2
        while text.utf8.count < 3_000_000 {
            let cells = (0..<3).map { _ in cell(&g) }
            // A row of three empty cells would be a blank line, which is skipped.
            if cells.allSatisfy({ $0.written.isEmpty }) { continue }
            text += cells.map(\.written).joined(separator: ",") + (g.next(2) == 0 ? "\r\n" : "\n")
            expected.append((line, cells.map(\.value)))
            line += 1 + cells.reduce(0) { $0 + $1.written.utf8.filter { $0 == 0x0A }.count }
        }
        let files = try DumpFixtures()
        let records = try readItems(try files.write("big.csv", text), buffers: buffers).compactMap(\.record)
        #expect(records.count == expected.count)
        for (record, want) in zip(records, expected)
        where record.fields.map(\.value) != want.values || record.line != want.line {
            Issue.record(
                "record at line \(want.line) read as line \(record.line ?? -1): \(record.fields.map(\.value).prefix(3))"
            )
            break
        }
    }
}
