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

    /// Columns and lengths count characters; the line is walked by index, a word is a
    /// slice of it (no array of characters per line).
    static func tokens(_ line: String) -> Result<[RuleToken], Failure> {
        var out: [RuleToken] = []
        var i = line.startIndex
        var column = 1  // of `i`
        func advance() {
            line.formIndex(after: &i)
            column += 1
        }
        while i < line.endIndex {
            let c = line[i]
            if c == " " || c == "\t" {
                advance()
                continue
            }
            if c == "#" { break }
            let start = i
            let startColumn = column
            if c == "\"" {
                var s = ""
                advance()
                var closed = false
                while i < line.endIndex {
                    let d = line[i]
                    if d == "\\" {
                        let next = line.index(after: i)
                        if next < line.endIndex {
                            s.append(line[next])
                            advance()
                            advance()
                            continue
                        }
                    }
                    if d == "\"" {
                        closed = true
                        advance()
                        break
                    }
                    s.append(d)
                    advance()
                }
                guard closed else { return .failure(Failure(column: startColumn, message: "unterminated string")) }
                out.append(RuleToken(kind: .string(s), column: startColumn, length: column - startColumn))
                continue
            }
            if isSymbol(c) {
                out.append(RuleToken(kind: .symbol(String(c)), column: startColumn, length: 1))
                advance()
                continue
            }
            if c == "=" || c == "<" || c == ">" || c == "!" {
                var op = String(c)
                advance()
                if i < line.endIndex, line[i] == "=" {
                    op.append("=")
                    advance()
                }
                guard op != "!" else {
                    return .failure(
                        Failure(column: startColumn, message: "'!' must be followed by '=' (use != or not)"))
                }
                if op == "==" { op = "=" }
                out.append(RuleToken(kind: .symbol(op), column: startColumn, length: column - startColumn))
                continue
            }
            while i < line.endIndex, !endsWord(line[i]) { advance() }
            out.append(
                RuleToken(kind: .word(String(line[start..<i])), column: startColumn, length: column - startColumn))
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
