import HTTPMessages
import JSONText
import Testing

@Suite("Responses: JSON, HTML, text, redirects, refusals, and headers added with ease")
struct HTTPResponseTests {
    @Test("JSON is written with its type, and no JSON text reads as HTML")
    func json() throws {
        let response = HTTPResponse.json(.object(JSONObject([("error", .string("<script>&"))])), status: 409)
        #expect(response.status == 409)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(!text.contains("<") && !text.contains("&"))
        #expect(try JSONParser.parse(response.body).object?["error"]?.string == "<script>&")
    }

    @Test("HTML, text, a 303 redirect and a refusal")
    func kinds() {
        #expect(HTTPResponse.html("<p>x</p>").header("Content-Type") == "text/html; charset=utf-8")
        #expect(HTTPResponse.text("x", status: 404).status == 404)
        let redirect = HTTPResponse.redirect(to: "/queue")
        #expect(redirect.status == 303)
        #expect(redirect.header("location") == "/queue")
        let refusal = HTTPResponse.refusal(HTTPRequestError(.badPath, "a path segment is . or .."))
        #expect(refusal.status == 400)
        #expect(String(decoding: refusal.body, as: UTF8.self) == "a path segment is . or ..\n")
    }

    @Test("headers are added in order, repeats kept, or set in place of every field of the name")
    func headers() {
        var response = HTTPResponse.html("x")
            .adding("Set-Cookie", "a=1").adding("Set-Cookie", "b=2")
        response.addHeader("X-Frame-Options", "DENY")
        response.setHeader("content-type", "text/html")
        #expect(response.headers.all("Set-Cookie") == ["a=1", "b=2"])
        #expect(response.header("Content-Type") == "text/html")
        #expect(response.headers.pairs.map(\.name) == ["Set-Cookie", "Set-Cookie", "X-Frame-Options", "content-type"])
    }

    @Test("a header field that cannot be sent as it is is found: a name not a token, a control character in a value")
    func unsendable() {
        #expect(HTTPResponse.text("x").adding("X-Ok", "tab\tand café").unsendableHeader == nil)
        #expect(HTTPResponse.text("x").adding("X-Bad", "a\r\nSet-Cookie: evil=1").unsendableHeader?.name == "X-Bad")
        #expect(HTTPResponse.text("x").adding("X Bad", "v").unsendableHeader?.name == "X Bad")
        #expect(HTTPResponse.text("x").adding("", "v").unsendableHeader != nil)
        #expect(HTTPResponse.text("x").adding("X-Nul", "a\u{0}").unsendableHeader != nil)
    }
}
