import Foundation
import Night
import Testing

/// The seeds of the `explainindex` fuzz target (Fuzz/seeds/explainindex/, Fuzz/README.md):
/// still indexes of this version, or the fuzzer would start from files refused at the magic.
@Suite("The explain index's fuzz seeds, and opening an index without a night")
struct ExplainIndexFuzzSeedTests {
    static let seeds = ShippedRulesTests.root + "/Fuzz/seeds/explainindex/"

    @Test("every seed opens without its stamp, and answers for an order of the sample night")
    func seedsOpen() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.seeds).filter { $0.hasSuffix(".bin") }
        #expect(names.count == 2)
        for name in names {
            let index = try ExplainIndex.openIgnoringStamp(path: Self.seeds + name).get()
            // ORD-1000004 is in orders-storekit.xml.gz, which both nights read.
            #expect(try index.orderEntries("ORD-1000004").count == 1, "\(name)")
            #expect(try index.orderEntries("ORD-9999999").isEmpty, "\(name)")
        }
    }

    @Test("open still compares the stamp: the seed is refused for a night of other inputs")
    func openComparesTheStamp() throws {
        let s = try Scratch()
        try FileManager.default.copyItem(atPath: Self.seeds + "sample-night.bin", toPath: s.file("explain-index.bin"))
        let other = try #require(
            ExplainIndexStamp(
                version: "0.0.0-other", rulesSHA256: "", production: true, orders: [], receipts: [], storeEvents: []))
        switch ExplainIndex.open(directory: s.path, expecting: other, ledger: .some(nil)) {
        case .success: Issue.record("an index of another night was believed")
        case .failure(let refusal): #expect(refusal.description.contains("this is 0.0.0-other"))
        }
    }
}
