import Testing

@testable import Screening

@Suite("Rules tokenizer")
struct RuleTokenizerTests {
    /// The tokenizer as first written, over an array of characters: the reference.
    func referenceTokens(_ line: String) -> Result<[RuleToken], RuleTokenizer.Failure> {
        let chars = Array(line)
        var out: [RuleToken] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" {
                i += 1
                continue
            }
            if c == "#" { break }
            let start = i
            if c == "\"" {
                var s = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count {
                        s.append(chars[i + 1])
                        i += 2
                        continue
                    }
                    if chars[i] == "\"" {
                        closed = true
                        i += 1
                        break
                    }
                    s.append(chars[i])
                    i += 1
                }
                guard closed else { return .failure(.init(column: start + 1, message: "unterminated string")) }
                out.append(RuleToken(kind: .string(s), column: start + 1, length: i - start))
                continue
            }
            if "()[],".contains(c) {
                out.append(RuleToken(kind: .symbol(String(c)), column: i + 1, length: 1))
                i += 1
                continue
            }
            if c == "=" || c == "<" || c == ">" || c == "!" {
                var op = String(c)
                if i + 1 < chars.count, chars[i + 1] == "=" {
                    op.append("=")
                    i += 1
                }
                i += 1
                guard op != "!" else {
                    return .failure(.init(column: start + 1, message: "'!' must be followed by '=' (use != or not)"))
                }
                if op == "==" { op = "=" }
                out.append(RuleToken(kind: .symbol(op), column: start + 1, length: i - start))
                continue
            }
            while i < chars.count, !" \t#\"()[],=<>!".contains(chars[i]) { i += 1 }
            out.append(RuleToken(kind: .word(String(chars[start..<i])), column: start + 1, length: i - start))
        }
        return .success(out)
    }

    func same(_ a: Result<[RuleToken], RuleTokenizer.Failure>, _ b: Result<[RuleToken], RuleTokenizer.Failure>) -> Bool
    {
        switch (a, b) {
        case (.success(let x), .success(let y)): return x == y
        case (.failure(let x), .failure(let y)): return x.column == y.column && x.message == y.message
        default: return false
        }
    }

    @Test("columns and lengths count characters: an accented word, a flag, a combining accent on a quote")
    func columns() throws {
        let tokens = try RuleTokenizer.tokens("flag hïgh x if order.note = \"é\\\"\" # c").get()
        #expect(tokens.map(\.column) == [1, 6, 11, 13, 16, 27, 29])
        #expect(tokens.map(\.length) == [4, 4, 1, 2, 10, 1, 5])
        #expect(tokens[6].kind == .string("é\""))
        // A quote with a combining accent is one character, and not a quote.
        #expect(try RuleTokenizer.tokens("a \"\u{301}b").get().map(\.kind) == [.word("a"), .word("\"\u{301}b")])
    }

    @Test("the same tokens and failures as the reference on 20,000 random lines")
    func sameAsReference() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % bound
        }
        let pieces = [
            "a", "é", "\u{301}", " ", "\t", "#", "\"", "\\", "(", ")", "[", "]", ",", "=", "<", ">", "!",
            "rule", "order.amount", "🇫🇷", "\r",
        ]
        for _ in 0..<20_000 {
            let line = (0..<next(14)).map { _ in pieces[next(pieces.count)] }.joined()
            #expect(same(RuleTokenizer.tokens(line), referenceTokens(line)), "\(line.debugDescription)")
        }
    }
}
