import HTTPMessages
import Testing

@Suite("The Cookie header: name=value pairs, spaces tolerated, control characters refused")
struct CookieHeaderTests {
    @Test("pairs split at ; with spaces and tabs around them dropped, values kept as sent")
    func pairs() throws {
        let cookies = try CookieHeader.parse(
            ["__Host-iapscreen=abc123;theme=dark ;  x = \"q v\" ;;\tlast=1=2"], limits: .standard)
        #expect(
            cookies.pairs == [
                NamedValue("__Host-iapscreen", "abc123"), NamedValue("theme", "dark"), NamedValue("x", "\"q v\""),
                NamedValue("last", "1=2"),
            ])
        #expect(cookies.first("theme") == "dark")
    }

    @Test("a piece without = is a nameless cookie; several Cookie fields are read in order")
    func namelessAndRepeated() throws {
        let cookies = try CookieHeader.parse(["lonely", "a=1; b=2"], limits: .standard)
        #expect(cookies.pairs == [NamedValue("", "lonely"), NamedValue("a", "1"), NamedValue("b", "2")])
        #expect(try CookieHeader.parse([], limits: .standard).isEmpty)
        #expect(try CookieHeader.parse(["", " ; ; "], limits: .standard).isEmpty)
    }

    @Test(
        "control characters are refused, a tab inside a name or value too",
        arguments: ["a=1\u{0}", "a=\u{1}", "a=1;\u{7F}b=2", "a\u{1B}=1", "a\tb=1", "a=1\t2", "\u{0}"])
    func controls(value: String) {
        let error = #expect(throws: HTTPRequestError.self) { try CookieHeader.parse([value], limits: .standard) }
        #expect(error?.code == .badCookie)
    }

    @Test("more cookies than the cap is 431")
    func cap() throws {
        #expect(try CookieHeader.parse(["a=1; b=2; c=3; d=4"], limits: .small).count == 4)
        let error = #expect(throws: HTTPRequestError.self) {
            try CookieHeader.parse(["a=1; b=2; c=3", "d=4; e=5"], limits: .small)
        }
        #expect(error?.status == 431)
    }
}
