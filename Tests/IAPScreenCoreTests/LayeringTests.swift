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

    /// Each target's direct dependencies, as Package.swift declares them.
    static func packageTargets() throws -> [String: [String]] {
        let manifest = Self.sources.deletingLastPathComponent().appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let declaration = try Regex(#"name:\s*"(\w[\w-]*)"\s*,\s*dependencies:\s*\[([^\]]*)\]"#)
        var out: [String: [String]] = [:]
        for match in text.matches(of: declaration) {
            guard let name = match.output[1].substring, let list = match.output[2].substring else { continue }
            out[String(name)] = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }.filter { !$0.isEmpty }
        }
        return out
    }

    @Test("Package.swift: the night pipeline, the ledger, the formats and the verifiers depend on no test support")
    func layersInThePackage() throws {
        let targets = try Self.packageTargets()
        for layer in [
            "Night", "Ledger", "PostgresClient", "SQLiteClient", "DumpFormats", "ReceiptFormats", "StoreReports",
            "StoreEvents",
            "ReceiptVerification", "StoreCrypto", "Screening", "Reporting", "Reconciliation",
        ] {
            #expect(targets[layer] != nil, "Package.swift declares \(layer)")
            var seen: Set<String> = []
            var next = [layer]
            while let t = next.popLast() {
                for d in targets[t] ?? [] where seen.insert(d).inserted { next.append(d) }
            }
            #expect(
                seen.isDisjoint(with: Self.testSupport),
                "\(layer) reaches test support: \(seen.intersection(Self.testSupport))")
        }
        // The commands reach the sample worlds (`samples`); the pipeline does not reach the commands.
        #expect(targets["IAPScreenCore"]?.contains("Night") == true)
        #expect(targets["Night"]?.contains("IAPScreenCore") == false)
    }

    @Test("no command file is over 150 lines")
    func commandFilesAreShort() throws {
        let root = Self.sources.appendingPathComponent("IAPScreenCore").path + "/"
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { $0.hasSuffix("Command.swift") }
        #expect(files.count >= 10)
        for file in files {
            let lines = try String(contentsOfFile: root + file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false
            ).count
            #expect(lines <= 151, "\(file) has \(lines) lines")
        }
    }
}
