import HTTPMessages
import Testing

@Suite("Query strings and urlencoded forms: + is a space, escapes decoded, repeated names kept")
struct FormURLEncodingTests {
    private func pairs(_ text: String) throws -> [NamedValue] {
        try FormURLEncoding.parse(text).pairs
    }

    @Test("pairs in order, + as space, escapes decoded, repeated names kept, empty pieces skipped")
    func pairs() throws {
        #expect(
            try pairs("status=open&rule=R1&rule=R2&q=a+b%2Bc&&note=caf%C3%A9%0D%0Aok")
                == [
                    NamedValue("status", "open"), NamedValue("rule", "R1"), NamedValue("rule", "R2"),
                    NamedValue("q", "a b+c"), NamedValue("note", "café\r\nok"),
                ])
        #expect(
            try pairs("flag&x=&=y&a=b=c") == [
                NamedValue("flag", ""), NamedValue("x", ""), NamedValue("", "y"), NamedValue("a", "b=c"),
            ])
        #expect(try pairs("") == [])
        #expect(try pairs("&&") == [])
    }

    @Test(
        "bad escapes and invalid UTF-8 are 400",
        arguments: ["a=%", "a=%4", "a=%GG", "%ZZ=1", "a=%C3%28", "a=%80", "a=%ED%B0%80"])
    func refused(text: String) {
        let error = #expect(throws: HTTPRequestError.self) { try FormURLEncoding.parse(text) }
        #expect(error?.code == .badForm)
        #expect(error?.status == 400)
    }

    @Test("more pairs than the cap is refused")
    func pairCap() throws {
        #expect(try FormURLEncoding.parse("a=1&b=2", maxPairs: 2).count == 2)
        #expect(throws: HTTPRequestError.self) { try FormURLEncoding.parse("a=1&b=2&c=3", maxPairs: 2) }
        #expect(try FormURLEncoding.parse("a=1&&&&b=2", maxPairs: 2).count == 2, "empty pieces count for nothing")
    }

    @Test("encoding pairs gives text that reads back as them")
    func roundTrip() throws {
        let original = NamedValues([
            NamedValue("q", "a b+c&d=e"), NamedValue("note", "café\r\n%"), NamedValue("", ""), NamedValue("k", "~._-"),
        ])
        let text = FormURLEncoding.encode(original)
        #expect(text == "q=a+b%2Bc%26d%3De&note=caf%C3%A9%0D%0A%25&=&k=~._-")
        #expect(try FormURLEncoding.parse(text) == original)
    }
}
