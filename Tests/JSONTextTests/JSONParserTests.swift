import IAPBasics
import JSONText
import Testing

@Suite("JSON parsing of hostile text")
struct JSONParserTests {
    @Test("objects keep member order, numbers keep their exact text")
    func exactness() throws {
        let v = try JSONParser.parse(#"{"b": 9007199254740993, "a": 27.990, "c": [true, null, "x\u00e9\ud83d\ude00"]}"#)
        let obj = try #require(v.object)
        #expect(obj.keys == ["b", "a", "c"])
        #expect(obj["b"]?.int64 == 9_007_199_254_740_993)
        #expect(obj["a"] == .number("27.990"))
        #expect(obj["c"]?.array?[2].string == "xé😀")
    }

    @Test("string-typed numbers read as integers; fractions and overflow do not")
    func int64() {
        #expect(JSONValue.string("1594755400000").int64 == 1_594_755_400_000)
        #expect(JSONValue.number("12.5").int64 == nil)
        #expect(JSONValue.number("99999999999999999999").int64 == nil)
    }

    @Test("malformed text gives a code and the byte offset")
    func errors() {
        func code(_ text: String) -> (String, Int)? {
            do {
                _ = try JSONParser.parse(text)
                return nil
            } catch { return (error.code, error.offset) }
        }
        #expect(code(#"{"a":1,}"#)?.0 == "bad-json")
        #expect(code(#"{"a": tru}"#)?.0 == "bad-json")
        #expect(code(#"{"a": "abc"#)?.0 == "truncated")
        #expect(code(#"{"a":1} x"#)! == ("trailing-data", 8))
        #expect(code(#"["\ud800"]"#)?.0 == "invalid-utf8")
        #expect(code("[\"a\u{01}\"]")?.0 == "bad-json")
        #expect(code("01")?.0 == "trailing-data")
    }

    @Test("invalid UTF-8 inside a string is refused with its offset")
    func invalidUTF8() {
        let bytes: [UInt8] = Array(#"{"k":"ab"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: DecodeError("invalid-utf8", "string is not valid UTF-8", at: 8)) {
            try JSONParser.parse(bytes)
        }
    }

    @Test("a million nested arrays fail fast at the depth cap")
    func deepNesting() {
        let text = String(repeating: "[", count: 1_000_000)
        #expect(throws: DecodeError.self) { try JSONParser.parse(text) }
    }

    @Test("container sizes and total length are capped")
    func caps() {
        var limits = Limits()
        limits.maxElements = 3
        #expect(throws: DecodeError.self) { try JSONParser.parse("[1,2,3,4]", limits: limits) }
        limits.maxPayloadBytes = 4
        #expect(throws: DecodeError.self) { try JSONParser.parse("[1,2]", limits: limits) }
    }

    @Test("the writer escapes what must be escaped, and HTML-safe mode hides markup")
    func writer() throws {
        let v = JSONValue.object(JSONObject([("k", .string("a\"b\\\n</script>\u{2028}"))]))
        #expect(v.jsonText == #"{"k":"a\"b\\\n</script>"# + "\u{2028}" + #""}"#)
        #expect(JSONWriter(htmlSafe: true).string(v) == #"{"k":"a\"b\\\n\u003c/script\u003e\u2028"}"#)
        #expect(try JSONParser.parse(v.jsonText) == v)
    }

    @Test("an escaped character is found wherever it stands among the eight bytes the writer tests at once")
    func writerFindsEveryPlace() throws {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "<", ">", "&", "\u{2028}", "\u{2029}",
            "\u{2030}",
        ]
        for special in specials {
            for at in 0..<18 {
                let s = String(repeating: "a", count: at) + special + String(repeating: "é", count: 9 - at / 2)
                for htmlSafe in [false, true] {
                    let text = JSONWriter(htmlSafe: htmlSafe).string(.string(s))
                    #expect(text == Self.escaped(s, htmlSafe: htmlSafe), "\(special) at \(at)")
                    #expect(try JSONParser.parse(text) == .string(s))
                }
            }
        }
    }

    /// What the writer should make of `s`, a character at a time.
    static func escaped(_ s: String, htmlSafe: Bool) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F: out += "\\u00" + (u.value < 0x10 ? "0" : "") + String(u.value, radix: 16)
            case 0x3C where htmlSafe, 0x3E where htmlSafe, 0x26 where htmlSafe, 0x2028 where htmlSafe,
                0x2029 where htmlSafe:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}

@Suite("Long strings")
struct JSONLongStringTests {
    @Test("escapes, control bytes and non-ASCII are found wherever they stand in a long string")
    func everyOffset() throws {
        for offset in 0..<24 {
            let prefix = String(repeating: "A", count: offset)
            #expect(try JSONParser.parse("[\"\(prefix)\\n\(prefix)\"]") == .array([.string(prefix + "\n" + prefix)]))
            #expect(try JSONParser.parse("[\"\(prefix)é\(prefix)\"]") == .array([.string(prefix + "é" + prefix)]))
            #expect(throws: DecodeError.self) { try JSONParser.parse("[\"\(prefix)\u{01}\(prefix)\"]") }
            let bad: [UInt8] = Array("[\"\(prefix)".utf8) + [0xFF] + Array("\(prefix)\"]".utf8)
            #expect(throws: DecodeError.self) { try JSONParser.parse(bad) }
        }
    }
}
