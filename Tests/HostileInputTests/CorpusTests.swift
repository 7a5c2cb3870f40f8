import Decompression
import Foundation
import IAPBasics
import JSONText
import ReceiptFormats
import Reporting
import Screening
import StoreReports
import Testing

/// One committed hostile case: `Corpus/<target>/<what-it-is>--<expected>.<ext>`.
/// `<expected>` is `ok`, a `DecodeError` code (payload readers), `nil` (timestamps),
/// `malformed` or an `InputError` code (dumps), `problems` (Rules directories, store-event
/// logs, whose problems `storeEventCorpus` lists). A name starting `small-` is read with
/// `Limits.small`.
struct CorpusCase: CustomTestStringConvertible, Sendable {
    let target: String
    let name: String
    let path: String

    var expected: String {
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        guard let r = stem.range(of: "--", options: .backwards) else { return "?" }
        return String(stem[r.upperBound...])
    }

    var limits: Limits { name.hasPrefix("small-") ? .small : .standard }
    var testDescription: String { "\(target)/\(name)" }

    func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}

/// Every file of `Corpus/<target>/`, sorted.
func corpus(_ target: String) -> [CorpusCase] {
    guard let root = Bundle.module.url(forResource: "Corpus", withExtension: nil) else { return [] }
    let dir = root.appendingPathComponent(target)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map {
        CorpusCase(target: target, name: $0, path: dir.appendingPathComponent($0).path)
    }
}

@Suite("Hostile corpus: each committed case gives its expected error or finding, never a crash")
struct CorpusTests {
    @Test("the corpus is bundled, within its size budget, and every name says what to expect")
    func bundled() throws {
        let root = try #require(Bundle.module.url(forResource: "Corpus", withExtension: nil))
        var total = 0
        for target in [
            "json", "base64", "timestamp", "receipt", "plist", "csv", "jsonl", "xml", "gzip", "rules", "storereport",
            "events", "shard-reports", "candidates",
        ] {
            let cases = corpus(target)
            #expect(!cases.isEmpty, "no corpus for \(target) under \(root.path)")
            for c in cases {
                let size = try c.bytes().count
                total += size
                #expect(size < 64 << 10, "\(c.name) is \(size) bytes: build big cases in the test instead")
                #expect(c.expected != "?", "\(c.name) does not say what to expect (<what>--<expected>.<ext>)")
            }
        }
        #expect(total < 2 << 20)
    }

    @Test("JSON text", arguments: corpus("json"))
    func json(_ c: CorpusCase) throws {
        let bytes = try c.bytes()
        #expect(outcome { () throws(DecodeError) in try JSONParser.parse(bytes, limits: c.limits) } == c.expected)
    }

    @Test("base64 (standard alphabet)", arguments: corpus("base64"))
    func base64(_ c: CorpusCase) throws {
        let bytes = try c.bytes()
        #expect(
            outcome { () throws(DecodeError) in try Base64.decode(bytes, maxBytes: c.limits.maxPayloadBytes) }
                == c.expected)
    }

    @Test("timestamps, one per line", arguments: corpus("timestamp"))
    func timestamp(_ c: CorpusCase) throws {
        let text = String(decoding: try c.bytes(), as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parsed = Timestamp.parse(String(line))
            #expect((parsed == nil ? "nil" : "ok") == c.expected, "\(line) -> \(parsed.map(\.iso8601) ?? "nil")")
            if let parsed { #expect(Timestamp.parse(parsed.iso8601) == parsed, "round trip of \(line)") }
        }
    }

    @Test("receipts of every kind, then verification against the sample trust", arguments: corpus("receipt"))
    func receipt(_ c: CorpusCase) throws {
        let bytes = try c.bytes()
        var decoded: Receipt?
        let result = outcome { () throws(DecodeError) in
            let r = try ReceiptDecoder.decode(bytes, limits: c.limits)
            decoded = r
            return r
        }
        #expect(result == c.expected)
        if let decoded, let verifier = sampleVerifier {
            // Whatever a hostile receipt carries, it never verifies against our anchors.
            #expect(verifier.verify(decoded).status.verdict != .valid)
        }
    }

    @Test("iOS 6 old-style property lists", arguments: corpus("plist"))
    func plist(_ c: CorpusCase) throws {
        let bytes = try c.bytes()
        #expect(outcome { () throws(DecodeError) in try OldStylePlist.parse(bytes, limits: c.limits) } == c.expected)
        _ = outcome { () throws(DecodeError) in try LegacyReceiptDecoder.decode(plist: bytes, limits: c.limits) }
    }

    @Test(
        "dumps: CSV, TSV, JSON Lines, XML, gzip",
        arguments: corpus("csv") + corpus("jsonl") + corpus("xml") + corpus("gzip"))
    func dump(_ c: CorpusCase) throws {
        let result = readDump(c.path, limits: c.limits)
        #expect(result.summary == c.expected, "\(result)")
        // A sharded run's workers, which leave each other's records unread, keep each once. Of
        // 2 and of 3: fnv1a64 mod 2 sees only the bytes' low bits (spaces around an id, even
        // ones, do not move it), mod 3 all of them.
        for count in [2, 3] {
            #expect(shardedReadDisagreement(c.path, count: count, limits: c.limits) == nil, "of \(count)")
        }
    }

    @Test("store reports: zip, gzip, UTF-16, broken rows", arguments: corpus("storereport"))
    func storeReport(_ c: CorpusCase) throws {
        var skipped = 0
        var events = 0
        do {
            try StoreReportFile.read(c.path, limits: c.limits) { reader throws(InputError) in
                while let item = try reader.next() {
                    switch item {
                    case .event: events += 1
                    case .skipped(let s):
                        skipped += 1
                        #expect(s.line > 1 && !s.reason.isEmpty)
                    case .ignored: break
                    }
                }
            }
            #expect((skipped == 0 ? "ok" : "skipped") == c.expected, "\(events) events, \(skipped) skipped")
        } catch {
            #expect(error.code == c.expected, "\(error)")
        }
    }

    @Test(
        "store-event logs: every bad event is a problem at its line, and reading goes on", arguments: corpus("events"))
    func storeEvents(_ c: CorpusCase) throws {
        let result = readStoreEvents(c.path, limits: c.limits)
        let expected = try #require(storeEventCorpus[c.name], "\(c.name) has no entry in storeEventCorpus")
        #expect(result.summary == c.expected, "\(result)")
        #expect(result.events == expected.events, "\(result)")
        #expect(result.problems.count == expected.problems.count, "\(result)")
        for (got, want) in zip(result.problems, expected.problems) {
            #expect(got.hasPrefix(want), "\(got)")
        }
        if let verifier = sampleVerifier {
            // A hostile App Store event that reads (a cut signature, none at all) never verifies.
            for signed in result.signed { #expect(verifier.verify(signed).status.verdict != .valid) }
        }
    }

    @Test("every store-event case has its problems listed")
    func storeEventCasesListed() {
        #expect(Set(corpus("events").map(\.name)) == Set(storeEventCorpus.keys))
    }

    @Test("Rules directories (`@@ <file>` sections)", arguments: corpus("rules"))
    func rules(_ c: CorpusCase) throws {
        let scratch = try ScratchDirectory()
        let loaded = try loadRules(try c.bytes(), in: scratch)
        switch loaded {
        case .success: #expect(c.expected == "ok")
        case .failure(let problems):
            #expect(c.expected == "problems", "\(problems.list.map(\.description))")
            #expect(!problems.list.isEmpty)
            for p in problems.list { #expect(!p.description.isEmpty) }
        }
    }

    @Test(
        "a sharded run's worker lines as merge reads them back (shard-reports.jsonl)",
        arguments: corpus("shard-reports"))
    func shardReports(_ c: CorpusCase) throws {
        let text = try c.bytes()
        var rejected = 0
        for line in text.split(separator: 0x0A) {
            let object = try? JSONParser.parse(Array(line), limits: c.limits).object
            guard let object, let (_, report) = OrderReportLine.report(object) else {
                rejected += 1
                continue
            }
            // What reads back writes the same line again.
            #expect(OrderReportLine.report(OrderReportLine.line(report, key: 7))?.report.findings == report.findings)
        }
        #expect((rejected == 0 ? "ok" : "rejected") == c.expected)
    }

    @Test("a staged order's candidates as the other shards read them, one text a line", arguments: corpus("candidates"))
    func candidates(_ c: CorpusCase) throws {
        let text = String(decoding: try c.bytes(), as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let decoded = StagedCandidates.decode(String(line))
            #expect((decoded == nil ? "nil" : "ok") == c.expected, "\(line)")
            if let decoded { #expect(StagedCandidates.encode(decoded) == String(line), "round trip of \(line)") }
        }
    }
}
