/// A token of a `.rules` line, with the column it starts at.
struct RuleToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: keyword, rule id, field name, number.
        case word(String)
        /// A double-quoted string, escapes resolved (`\"`, `\\`).
        case string(String)
        /// `=`, `!=`, `<`, `<=`, `>`, `>=`, `(`, `)`, `[`, `]`, `,`.
        case symbol(String)
    }

    var kind: Kind
    /// 1-based column and length in characters.
    var column: Int
    var length: Int

    var text: String {
        switch kind {
        case .word(let w): return w
        case .string(let s): return "\"\(s)\""
        case .symbol(let s): return s
        }
    }

    func isWord(_ w: String) -> Bool { kind == .word(w) }
    func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }
}

enum RuleTokenizer {
    /// Splits one line (comment already allowed: `#` outside a string ends the line).
    struct Failure: Error {
        var column: Int
        var message: String
    }

    static func tokens(_ line: String) -> Result<[RuleToken], Failure> {
        let chars = Array(line)
        var out: [RuleToken] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" { i += 1; continue }
            if c == "#" { break }
            let start = i
            if c == "\"" {
                var s = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count { s.append(chars[i + 1]); i += 2; continue }
                    if chars[i] == "\"" { closed = true; i += 1; break }
                    s.append(chars[i])
                    i += 1
                }
                guard closed else { return .failure(Failure(column: start + 1, message: "unterminated string")) }
                out.append(RuleToken(kind: .string(s), column: start + 1, length: i - start))
                continue
            }
            if isSymbol(c) {
                out.append(RuleToken(kind: .symbol(String(c)), column: i + 1, length: 1))
                i += 1
                continue
            }
            if c == "=" || c == "<" || c == ">" || c == "!" {
                var op = String(c)
                if i + 1 < chars.count, chars[i + 1] == "=" { op.append("="); i += 1 }
                i += 1
                guard op != "!" else { return .failure(Failure(column: start + 1, message: "'!' must be followed by '=' (use != or not)")) }
                if op == "==" { op = "=" }
                out.append(RuleToken(kind: .symbol(op), column: start + 1, length: i - start))
                continue
            }
            while i < chars.count, !endsWord(chars[i]) { i += 1 }
            out.append(RuleToken(kind: .word(String(chars[start..<i])), column: start + 1, length: i - start))
        }
        return .success(out)
    }

    /// `(` `)` `[` `]` `,`: a token of one character.
    private static func isSymbol(_ c: Character) -> Bool {
        switch c {
        case "(", ")", "[", "]", ",": return true
        default: return false
        }
    }

    /// What ends a bare word: space, a comment, a string, a symbol or an operator.
    private static func endsWord(_ c: Character) -> Bool {
        switch c {
        case " ", "\t", "#", "\"", "(", ")", "[", "]", ",", "=", "<", ">", "!": return true
        default: return false
        }
    }
}
