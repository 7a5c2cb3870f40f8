import HTTPMessages
import Testing

@Suite("A request read from its request line and header fields")
struct HTTPRequestTests {
    private func refusal(
        method: String = "GET", target: String = "/", headers: [NamedValue] = [], limits: HTTPLimits = .standard
    ) -> HTTPRequestError? {
        do throws(HTTPRequestError) {
            _ = try HTTPRequest(method: method, target: target, headers: headers, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("method, target, path, query, headers (names lower-cased, repeats kept), cookies and peer")
    func parts() throws {
        let request = try HTTPRequest(
            method: "GET", target: "/api/v1/queue?status=open&rule=R1&rule=R2",
            headers: [
                NamedValue("Host", "127.0.0.1:8080"), NamedValue("X-Thing", "one"), NamedValue("x-thing", "two"),
                NamedValue("Cookie", "__Host-iapscreen=s1; theme=dark"),
            ], peer: "127.0.0.1")
        #expect(request.method == "GET")
        #expect(request.target == "/api/v1/queue?status=open&rule=R1&rule=R2")
        #expect(request.path == ["api", "v1", "queue"])
        #expect(request.query.all("rule") == ["R1", "R2"])
        #expect(request.header("X-THING") == "one")
        #expect(request.headers.all("x-thing") == ["one", "two"])
        #expect(request.headers.pairs.first?.name == "host")
        #expect(request.cookie("__Host-iapscreen") == "s1")
        #expect(request.peer == "127.0.0.1")
        #expect(try HTTPRequest(method: "GET", target: "/x?").query.isEmpty)
    }

    @Test("the target: at most maxTargetBytes (414), visible ASCII, no fragment, a path from /")
    func target() {
        #expect(refusal(target: "/" + String(repeating: "a", count: 255), limits: .small) == nil)
        #expect(refusal(target: "/" + String(repeating: "a", count: 256), limits: .small)?.status == 414)
        #expect(refusal(target: "/a b")?.code == .badTarget)
        #expect(refusal(target: "/a#frag")?.code == .badTarget)
        #expect(refusal(target: "/caf\u{E9}")?.code == .badTarget)
        #expect(refusal(target: "/a\u{7F}")?.code == .badTarget)
        #expect(refusal(target: "*")?.code == .badTarget)
        #expect(refusal(target: "/%2e%2e/etc/passwd")?.code == .badPath)
        #expect(refusal(target: "/?q=%zz")?.code == .badQuery)
        #expect(refusal(target: "/?a&b&c&d&e", limits: .small)?.code == .badQuery)
    }

    @Test("the method is a token", arguments: ["", "G T", "GET\u{0}", "<GET>", "GÉT"])
    func method(method: String) {
        #expect(refusal(method: method)?.code == .badMethod)
    }

    @Test("header fields: token names, values without controls and in UTF-8")
    func fields() throws {
        #expect(refusal(headers: [NamedValue("Bad Name", "x")])?.code == .badHeader)
        #expect(refusal(headers: [NamedValue("", "x")])?.code == .badHeader)
        #expect(refusal(headers: [NamedValue("X", "a\u{0}b")])?.code == .badHeader)
        #expect(refusal(headers: [NamedValue("X", "a\u{1B}b")])?.code == .badHeader)
        #expect(refusal(headers: [NamedValue("X", "tab\tand caf\u{E9}")]) == nil)
        let latin1 = try #require(throws: HTTPRequestError.self) {
            try HTTPRequest(
                method: Array("GET".utf8), target: Array("/".utf8), fields: [(Array("X".utf8), [0x63, 0xE9])])
        }
        #expect(latin1.code == .badHeader)
        #expect(refusal(headers: [NamedValue("Cookie", "a=\u{1}")])?.code == .badHeader, "caught as a field first")
    }

    @Test("too many header fields, or too many bytes of them, is 431")
    func fieldCaps() {
        let eight = (1...8).map { NamedValue("h\($0)", "v") }
        #expect(refusal(headers: eight, limits: .small) == nil)
        #expect(refusal(headers: eight + [NamedValue("h9", "v")], limits: .small)?.status == 431)
        // 512 bytes, each field counted as `name: value\r\n`.
        #expect(refusal(headers: [NamedValue("x", String(repeating: "v", count: 507))], limits: .small) == nil)
        #expect(refusal(headers: [NamedValue("x", String(repeating: "v", count: 508))], limits: .small)?.status == 431)
        #expect(refusal(headers: [NamedValue("Cookie", "a=1;b=2;c=3;d=4;e=5")], limits: .small)?.status == 431)
    }
}
