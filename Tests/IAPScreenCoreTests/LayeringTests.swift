import Foundation
import Testing

/// What ships never leans on test support: the sample worlds, receipt builders and test
/// keys are imported only by the `samples` command, the benchmark and the tests.
@Suite("Layers: test support stays out of the product")
struct LayeringTests {
    static let testSupport = ["ReceiptBuilder", "SampleWorld"]
    /// Where test support may be imported: itself, the benchmark, and the `samples` command.
    static let allowed = ["ReceiptBuilder/", "SampleWorld/", "iapscreen-bench/", "IAPScreenCore/Samples/"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
    }

    @Test("no module of the product but the samples command imports a test-support module")
    func noTestSupportInTheProduct() throws {
        let root = Self.sources.path + "/"
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "the sources were found at \(root)")
        var offending: [String] = []
        for file in files where !Self.allowed.contains(where: file.hasPrefix) {
            let text = try String(contentsOfFile: root + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
                if Self.testSupport.contains(String(words[i + 1])) { offending.append("\(file): \(line)") }
            }
        }
        #expect(offending.isEmpty, "test support imported by the product: \(offending)")
    }
}
