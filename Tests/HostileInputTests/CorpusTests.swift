import Foundation
import Testing

@Suite("Hostile corpus")
struct CorpusTests {
    @Test("the corpus is bundled with the tests")
    func bundled() throws {
        #expect(Bundle.module.url(forResource: "Corpus", withExtension: nil) != nil)
    }
}
