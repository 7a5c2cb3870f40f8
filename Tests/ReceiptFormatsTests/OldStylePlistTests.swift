import IAPBasics
import ReceiptFormats
import Testing

private func parse(_ text: String, limits: Limits = .standard) throws -> OldStylePlist {
    try OldStylePlist.parse(Array(text.utf8), limits: limits)
}

private func failure(_ bytes: [UInt8], limits: Limits = .standard) -> DecodeError? {
    do {
        _ = try OldStylePlist.parse(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

private func failure(_ text: String, limits: Limits = .standard) -> DecodeError? {
    failure(Array(text.utf8), limits: limits)
}

@Suite("Old-style property lists")
struct OldStylePlistTests {
    @Test("an iOS 6 style dictionary reads with its keys in order")
    func receiptShape() throws {
        let plist = try parse(
            """
            {
            \t"signature" = "AmFi+/==";
            \t"purchase-info" = "ewo=";
            \t"pod" = "100";
            }
            """)
        #expect(plist.entries?.map(\.key) == ["signature", "purchase-info", "pod"])
        #expect(plist["signature"]?.string == "AmFi+/==")
        #expect(plist["pod"]?.string == "100")
        #expect(plist["pod"]?.offset == 65)
        #expect(plist["missing"] == nil)
    }

    @Test("unquoted strings, arrays, data, nested dictionaries and comments read")
    func everyValueKind() throws {
        let plist = try parse(
            """
            // a comment
            { key = value-1.2_$+/:; /* block
            comment */ list = (a, "b c", (), { x = y; },); data = <0fbd 77>; empty = {}; }
            """)
        #expect(plist["key"]?.string == "value-1.2_$+/:")
        guard case .array(let items) = plist["list"]?.value else {
            Issue.record("list is not an array")
            return
        }
        #expect(items.count == 4)
        #expect(items[1].string == "b c")
        #expect(items[2].value == .array([]))
        #expect(items[3]["x"]?.string == "y")
        #expect(plist["data"]?.value == .data([0x0F, 0xBD, 0x77]))
        #expect(plist["empty"]?.value == .dictionary([]))
    }

    @Test("escapes in quoted strings decode, \\U surrogate pairs included")
    func escapes() throws {
        let plist = try parse(#"{ a = "q\"b\\n\n\t\101\U00e9\Ud83d\Ude00"; }"#)
        #expect(plist["a"]?.string == "q\"b\\n\n\tAé😀")
        #expect(failure(#"{ a = "\Ud83d"; }"#)?.code == "bad-escape")
        #expect(failure(#"{ a = "\U12"; }"#)?.code == "bad-escape")
    }

    @Test("unterminated strings, dictionaries, arrays, data and comments are errors at their offset")
    func unterminated() {
        let string = failure(#"{ "a" = "never closed; }"#)
        #expect(string?.code == "unterminated-string")
        #expect(string?.offset == 24)
        #expect(failure(#"{ "a" = "b";"#)?.code == "unterminated-dictionary")
        #expect(failure("( a, b")?.code == "unterminated-array")
        #expect(failure("<0fbd")?.code == "unterminated-data")
        #expect(failure("{ } /* open")?.code == "unterminated-comment")
        #expect(failure(#"{ "a" = "b" }"#)?.code == "unexpected-character")
        #expect(failure(#"{ "a" "b"; }"#)?.code == "unexpected-character")
        #expect(failure("")?.code == "truncated")
    }

    @Test("a million levels of nesting fail fast at the depth cap")
    func deepNesting() {
        let error = failure(String(repeating: "{a=", count: 1_000_000))
        #expect(error?.code == "too-deep")
        #expect(error?.offset == 3 * Limits.standard.maxDepth)
        #expect(failure(String(repeating: "(", count: 1_000_000))?.code == "too-deep")
    }

    @Test("repeated keys, trailing text and invalid UTF-8 are refused")
    func refused() {
        let duplicate = failure(#"{ a = 1; b = 2; a = 3; }"#)
        #expect(duplicate?.code == "duplicate-key")
        #expect(duplicate?.offset == 16)
        #expect(failure("{ a = 1; } x")?.code == "trailing-bytes")
        let invalid = failure(Array(#"{ a = ""#.utf8) + [0xC3, 0x28] + Array(#""; }"#.utf8))
        #expect(invalid?.code == "bad-string")
        #expect(invalid?.offset == 6)
        #expect(failure("<0fb>")?.code == "bad-data")
        #expect(failure("<0xfb>")?.code == "bad-data")
        #expect(failure("{ (a) = b; }")?.code == "unexpected-character")
    }

    @Test("more entries than the element cap is an error")
    func elementCap() {
        var limits = Limits.standard
        limits.maxElements = 10
        let text = "{" + (0..<20).map { "k\($0) = v;" }.joined() + "}"
        #expect(failure(text, limits: limits)?.code == "too-many-elements")
        #expect(failure("(" + String(repeating: "a,", count: 20) + ")", limits: limits)?.code == "too-many-elements")
        limits.maxPayloadBytes = 8
        #expect(failure(text, limits: limits)?.code == "too-large")
    }
}
