import Foundation
import Testing

/// The manifest tells the truth: every module of this package a target imports is one of its
/// declared dependencies, and every dependency it declares it imports. SwiftPM lets a target
/// import what it only reaches through another's dependencies, so nothing else catches an
/// undeclared import until the other target drops it. The targets and their dependencies
/// are SwiftPM's own reading of Package.swift (`swift package dump-package`).
@Suite("Package manifest")
struct ManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Target {
        var name: String
        var kind: String
        var path: String
        var dependencies: Set<String>
    }

    /// The package's targets as `swift package dump-package` gives them.
    static func targets() throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = Process()
        swift.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch path of its own: the running `swift test` holds the package's .build.
        swift.arguments = [
            "swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package",
        ]
        let out = Pipe()
        swift.standardOutput = out
        swift.standardError = FileHandle.nullDevice
        try swift.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        swift.waitUntilExit()
        try #require(swift.terminationStatus == 0, "swift package dump-package failed")
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        return targets.compactMap { t in
            guard let name = t["name"] as? String, let kind = t["type"] as? String else { return nil }
            let path = (t["path"] as? String) ?? "\(kind == "test" ? "Tests" : "Sources")/\(name)"
            var dependencies = Set<String>()
            for dependency in t["dependencies"] as? [[String: Any]] ?? [] {
                for value in dependency.values {
                    if let first = (value as? [Any])?.first as? String { dependencies.insert(first) }
                }
            }
            return Target(name: name, kind: kind, path: path, dependencies: dependencies)
        }
    }

    /// The modules of `names` that the Swift files under `path` import.
    static func imports(under path: String, of names: Set<String>) throws -> Set<String> {
        let directory = root.appendingPathComponent(path)
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        let attributes = #"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"#
        let kinds = #"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?"#
        let pattern = try Regex(#"^\s*"# + attributes + #"import\s+"# + kinds + #"(\w+)"#)
        var found = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = line.firstMatch(of: pattern), let module = match.output[1].substring.map(String.init),
                    names.contains(module)
                {
                    found.insert(module)
                }
            }
        }
        return found
    }

    @Test("every target declares exactly the package's modules it imports")
    func dependenciesAreImports() throws {
        let targets = try Self.targets()
        #expect(targets.count > 30, "dump-package read \(targets.count) targets")
        let names = Set(targets.map(\.name))
        for target in targets where target.kind != "system" {
            let imported = try Self.imports(under: target.path, of: names)
            #expect(
                imported.subtracting(target.dependencies).isEmpty,
                "\(target.name) imports \(imported.subtracting(target.dependencies).sorted()) without declaring them")
            #expect(
                target.dependencies.subtracting(imported).isEmpty,
                "\(target.name) declares \(target.dependencies.subtracting(imported).sorted()) and imports none of them"
            )
        }
    }
}
