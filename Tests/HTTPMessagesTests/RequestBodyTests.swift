import HTTPMessages
import JSONText
import Testing

@Suite("Bodies read as their Content-Type says: JSON objects and urlencoded forms")
struct RequestBodyTests {
    private func post(_ body: String, type: String?) throws(HTTPRequestError) -> HTTPRequest {
        try HTTPRequest(
            method: "POST", target: "/api/v1/orders/o1/verdict",
            headers: type.map { [NamedValue("Content-Type", $0)] } ?? [], body: Array(body.utf8))
    }

    private func jsonError(_ body: String, type: String? = "application/json", limits: HTTPLimits = .standard) throws
        -> HTTPRequestError?
    {
        do throws(HTTPRequestError) {
            _ = try post(body, type: type).jsonObject(limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("a JSON object, with or without a charset parameter")
    func jsonObject() throws {
        let body = #"{"verdict": "fraud", "note": "caf\u00e9", "version": 3}"#
        let object = try post(body, type: "application/json").jsonObject()
        #expect(object["verdict"]?.string == "fraud")
        #expect(object["note"]?.string == "café")
        #expect(object["version"]?.int64 == 3)
        #expect(try post(body, type: "Application/JSON; charset=UTF-8").jsonObject()["version"]?.int64 == 3)
        #expect(try post(body, type: #"application/json;charset="utf-8""#).jsonObject().keys.count == 3)
    }

    @Test(
        "malformed JSON, or JSON that is not an object, is 400",
        arguments: ["", "{", #"{"a":}"#, "[1]", "\"text\"", "{} {}", "{\"a\":\"\u{1}\"}", "\u{FEFF}{}"])
    func badJSON(body: String) throws {
        let error = try jsonError(body)
        #expect(error?.code == .badJSON)
        #expect(error?.status == 400)
    }

    @Test("JSON nested deeper, or with more members, than the caps is 400; a body over the cap 413")
    func jsonCaps() throws {
        #expect(try jsonError(#"{"a":{"b":{"c":[1]}}}"#, limits: .small) == nil)
        #expect(try jsonError(#"{"a":{"b":{"c":[[1]]}}}"#, limits: .small)?.code == .badJSON)
        #expect(try jsonError(#"{"a":[1,2,3,4,5,6,7,8]}"#, limits: .small) == nil)
        #expect(try jsonError(#"{"a":[1,2,3,4,5,6,7,8,9]}"#, limits: .small)?.code == .badJSON)
        let big = "{\"a\":\"" + String(repeating: "x", count: 1100) + "\"}"
        #expect(try jsonError(big, limits: .small)?.status == 413)
    }

    @Test(
        "a body of another type, or none named, or not UTF-8, is 415",
        arguments: [
            nil, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1",
            "application/jsonx", "application", "application/json garbage", "application/json; charset",
        ])
    func wrongType(type: String?) throws {
        #expect(try jsonError("{}", type: type)?.status == 415)
    }

    @Test("an urlencoded form's pairs; a malformed one is 400, too many pairs 400")
    func form() throws {
        let form = try post("username=lead&password=a+b%26c&csrf=t0k", type: "application/x-www-form-urlencoded").form()
        #expect(form.first("password") == "a b&c")
        #expect(form.first("csrf") == "t0k")
        let bad = #expect(throws: HTTPRequestError.self) {
            try post("a=%zz", type: "application/x-www-form-urlencoded").form()
        }
        #expect(bad?.status == 400)
        let many = #expect(throws: HTTPRequestError.self) {
            try post("a&b&c&d&e", type: "application/x-www-form-urlencoded").form(limits: .small)
        }
        #expect(many?.status == 400)
        let json = #expect(throws: HTTPRequestError.self) { try post("a=1", type: "application/json").form() }
        #expect(json?.status == 415)
    }

    @Test("a Content-Type: type, subtype and parameters, names lower-cased, quoted values unquoted")
    func mediaType() throws {
        let type = try MediaType(parsing: #"Text/HTML ; Charset="utf\"-8" ;q=1;  "#)
        #expect(type.essence == "text/html")
        #expect(type.parameters.pairs == [NamedValue("charset", "utf\"-8"), NamedValue("q", "1")])
        for bad in ["", "/json", "text/", "text/html;=x", "text/html; a=\"open", "text/html; a=", "text html"] {
            #expect(throws: HTTPRequestError.self, "\(bad)") { try MediaType(parsing: bad) }
        }
    }
}
