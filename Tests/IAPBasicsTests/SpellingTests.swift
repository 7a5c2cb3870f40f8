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

    /// The plain definition: every distance in full, the first smallest, then the allowance.
    func referenceNearest(_ word: String, in candidates: [String]) -> String? {
        func distance(_ a: String, _ b: String) -> Int {
            let x = Array(a)
            let y = Array(b)
            guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
            var prev = Array(0...y.count)
            var cur = prev
            for i in 1...x.count {
                cur[0] = i
                for j in 1...y.count {
                    cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                }
                swap(&prev, &cur)
            }
            return prev[y.count]
        }
        let best = candidates.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(2, word.count / 3) else { return nil }
        return best.0
    }

    @Test("the same answers as computing every distance in full, on 20,000 random words and lists")
    func sameAsReference() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % bound
        }
        let letters = Array("abcé-_ ")
        func word() -> String { String((0..<next(12)).map { _ in letters[next(letters.count)] }) }
        for _ in 0..<20_000 {
            let w = word()
            let candidates = (0..<next(6)).map { _ in word() }
            #expect(Spelling.nearest(w, in: candidates) == referenceNearest(w, in: candidates), "\(w) in \(candidates)")
            if let c = candidates.first {
                #expect(Spelling.distance(w, c) == Spelling.distance(c, w))
            }
        }
    }
}
