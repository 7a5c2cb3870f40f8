/// For "did you mean …?" hints: how far apart two words are, and the near miss.
public enum Spelling {
    /// Levenshtein distance in characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        var prev: [Int] = []
        var cur: [Int] = []
        return distance(Array(a), Array(b), within: Int.max, &prev, &cur) ?? Int.max
    }

    /// The closest candidate (the first of equally close ones), if it is close enough to be
    /// a typo of `word`: at most a third of its characters (and at least 2) apart.
    public static func nearest(_ word: String, in candidates: [String]) -> String? {
        let length = word.count
        let allowed = max(2, length / 3)
        var x: [Character] = []  // the word's characters, split once a candidate needs them
        var best: (candidate: String, distance: Int)?
        var prev: [Int] = []
        var cur: [Int] = []
        for candidate in candidates {
            // Only a candidate within the allowance and closer than the best so far changes
            // the answer. Two words are at least their difference in length apart, so most
            // candidates (all of them, for a long word) are dismissed unread.
            let limit = min(allowed, (best?.distance ?? Int.max) - 1)
            guard limit >= 0 else { break }
            guard abs(length - candidate.count) <= limit else { continue }
            if x.count != length { x = Array(word) }
            if let d = distance(x, Array(candidate), within: limit, &prev, &cur) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// The distance when it is at most `limit`, else nil; `prev` and `cur` are the two rows
    /// of the table, reused between calls. A row's smallest entry never shrinks further
    /// down the table: once it is past `limit`, so is the distance.
    static func distance(
        _ x: [Character], _ y: [Character], within limit: Int,
        _ prev: inout [Int], _ cur: inout [Int]
    ) -> Int? {
        guard !x.isEmpty, !y.isEmpty else {
            let d = max(x.count, y.count)
            return d <= limit ? d : nil
        }
        prev.removeAll(keepingCapacity: true)
        prev.append(contentsOf: 0...y.count)
        cur.removeAll(keepingCapacity: true)
        cur.append(contentsOf: repeatElement(0, count: y.count + 1))
        for i in 1...x.count {
            cur[0] = i
            var rowMinimum = i
            for j in 1...y.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                rowMinimum = min(rowMinimum, cur[j])
            }
            if rowMinimum > limit { return nil }
            swap(&prev, &cur)
        }
        return prev[y.count] <= limit ? prev[y.count] : nil
    }
}
