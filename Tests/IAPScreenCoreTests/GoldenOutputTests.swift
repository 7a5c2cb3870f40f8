import Foundation
import Testing

/// What screening and explain say on fixed worlds, word for word, against the golden files
/// `scripts/golden-run.sh` wrote with the commit before the rule engine was split into one
/// file per rule. A change here is a change of behaviour: regenerate them only when it is
/// meant (the script says how), and say so in the commit.
@Suite struct GoldenOutputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func screenAndExplainSayWhatTheyAlwaysSaid() throws {
        let scratch = try Scratch()
        let run = try Tool.runProgram(
            "/bin/bash", [Self.root + "/scripts/golden-run.sh", Tool.binary.path, scratch.path])
        try #require(run.status == 0, "golden-run.sh failed: \(run.stderr)")
        let expectedDir = Self.root + "/Tests/Golden/expected"
        let expected = try FileManager.default.contentsOfDirectory(atPath: expectedDir).sorted()
        let produced = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        #expect(produced == expected, "the run wrote other files than the golden ones")
        for name in expected where produced.contains(name) {
            let want = try String(contentsOfFile: expectedDir + "/" + name, encoding: .utf8)
            let got = try scratch.read(name)
            guard want != got else { continue }
            let a = want.split(separator: "\n", omittingEmptySubsequences: false)
            let b = got.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            Issue.record(
                """
                \(name) differs from the golden file first at line \(first + 1):
                  golden: \(a.indices.contains(first) ? String(a[first]) : "(end of file)")
                  now:    \(b.indices.contains(first) ? String(b[first]) : "(end of file)")
                """)
        }
    }
}
