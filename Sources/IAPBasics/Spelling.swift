/// For "did you mean …?" hints: how far apart two words are, and the near miss.
public enum Spelling {
    /// Levenshtein distance in characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a), Array(b))
    }

    static func distance(_ x: [Character], _ y: [Character]) -> Int {
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

    /// The closest candidate (the first of equally close ones), if it is close enough to be
    /// a typo of `word`: at most a third of its characters (and at least 2) apart.
    public static func nearest(_ word: String, in candidates: [String]) -> String? {
        let x = Array(word)
        let allowed = max(2, x.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let y = Array(candidate)
            // Two words are at least their difference in length apart: one further off than
            // allowed cannot be the answer, and a long word costs nothing against short names.
            guard abs(x.count - y.count) <= allowed else { continue }
            let d = distance(x, y)
            if d < best?.distance ?? Int.max { best = (candidate, d) }
        }
        guard let best, best.distance <= allowed else { return nil }
        return best.candidate
    }
}
