import JSONText

/// A rule whose findings count under both Rules directories of a backtest, at another
/// severity: what a reader of `rules-changed` needs to see, with both severities.
public struct SeverityChange: Sendable, Equatable {
    public var rule: String
    public var baseline: String
    public var candidate: String
    /// How many findings changed severity so; `orders`, on how many orders.
    public var findings: Int
    public var orders = 1

    /// The severity changes between one order's findings that count under each directory, each
    /// given as "rule severity": per rule found on both sides at one severity each, another
    /// one; counted as the findings both sides have.
    public static func between(_ before: [String], _ after: [String]) -> [SeverityChange] {
        func byRule(_ findings: [String]) -> [String: [String]] {
            var out: [String: [String]] = [:]
            for f in findings {
                let words = f.split(separator: " ", maxSplits: 1)
                guard let rule = words.first, let severity = words.last, words.count == 2 else { continue }
                out[String(rule), default: []].append(String(severity))
            }
            return out
        }
        let was = byRule(before)
        let now = byRule(after)
        return was.keys.sorted().compactMap { rule in
            guard let b = was[rule], let a = now[rule], let from = b.first, let to = a.first,
                Set(b) == [from], Set(a) == [to], from != to
            else { return nil }
            return SeverityChange(rule: rule, baseline: from, candidate: to, findings: min(b.count, a.count))
        }
    }

    /// `signature-invalid severity critical → medium: 12 findings`.
    public var words: String {
        "\(rule) severity \(baseline) \u{2192} \(candidate): \(findings) finding\(findings == 1 ? "" : "s")"
    }

    public var json: JSONObject {
        JSONObject([
            ("rule", .string(rule)), ("baseline", .string(baseline)), ("candidate", .string(candidate)),
            ("findings", .integer(findings)), ("orders", .integer(orders)),
        ])
    }

    /// Adds `c` to `changes`, summed per rule and pair of severities (a handful: a list will do).
    static func add(_ c: SeverityChange, to changes: inout [SeverityChange]) {
        let same = { (x: SeverityChange) in (x.rule, x.baseline, x.candidate) == (c.rule, c.baseline, c.candidate) }
        guard let i = changes.firstIndex(where: same) else { return changes.append(c) }
        changes[i].findings += c.findings
        changes[i].orders += c.orders
    }

    /// Sorted by rule, then severities.
    static func sorted(_ changes: [SeverityChange]) -> [SeverityChange] {
        changes.sorted { ($0.rule, $0.baseline, $0.candidate) < ($1.rule, $1.baseline, $1.candidate) }
    }
}
