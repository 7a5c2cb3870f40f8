import IAPBasics
import Testing

@Suite("Spelling hints")
struct SpellingTests {
    @Test("distance counts insertions, deletions and substitutions in characters")
    func distance() {
        #expect(Spelling.distance("kitten", "sitting") == 3)
        #expect(Spelling.distance("", "abc") == 3)
        #expect(Spelling.distance("über", "uber") == 1)
        #expect(Spelling.distance("same", "same") == 0)
    }

    @Test("a typo finds its word; the first of equally close candidates wins; a far word finds none")
    func nearest() {
        #expect(Spelling.nearest("expird-validity", in: ["revoked", "expired-validity"]) == "expired-validity")
        #expect(Spelling.nearest("ab", in: ["ax", "ay"]) == "ax")
        #expect(Spelling.nearest("ab", in: ["ay", "ax"]) == "ay")
        #expect(Spelling.nearest("--outt", in: ["--out", "--orders"]) == "--out")
        #expect(Spelling.nearest("zzzzzz", in: ["rule", "exempt", "flag"]) == nil)
        #expect(Spelling.nearest("x", in: []) == nil)
        // Within the allowance by length difference alone: a short word, a longer candidate.
        #expect(Spelling.nearest("fla", in: ["flag", "rules"]) == "flag")
    }

    @Test("a 100,000-character word against short names finds none, at once")
    func longWord() {
        let word = String(repeating: "x", count: 100_000)
        #expect(Spelling.nearest(word, in: ["rule", "exempt", "flag", String(repeating: "x", count: 50_000)]) == nil)
        let short = String(repeating: "x", count: 300)
        #expect(Spelling.nearest(short + "y", in: ["rule", short]) == short)
    }
}
