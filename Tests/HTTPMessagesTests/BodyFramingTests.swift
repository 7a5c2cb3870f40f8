import HTTPMessages
import Testing

@Suite("A body's length, decided before it is read")
struct BodyFramingTests {
    private func length(_ fields: [NamedValue], limits: HTTPLimits = .small) -> Result<Int, HTTPRequestError> {
        Result { () throws(HTTPRequestError) in try BodyFraming.length(of: NamedValues(fields), limits: limits) }
    }

    private func status(_ fields: [NamedValue], limits: HTTPLimits = .small) -> Int? {
        if case .failure(let error) = length(fields, limits: limits) { return error.status }
        return nil
    }

    @Test("no Content-Length: no body; a Content-Length up to the cap: that many bytes")
    func lengths() throws {
        #expect(try length([]).get() == 0)
        #expect(try length([NamedValue("content-length", "0")]).get() == 0)
        #expect(try length([NamedValue("content-length", "1024")]).get() == 1024)
        #expect(try length([NamedValue("content-length", "7"), NamedValue("content-length", "7")]).get() == 7)
    }

    @Test("a Content-Length over the cap is 413, however many digits it has")
    func tooLarge() {
        #expect(status([NamedValue("content-length", "1025")]) == 413)
        #expect(status([NamedValue("content-length", String(repeating: "9", count: 400))]) == 413)
        #expect(status([NamedValue("content-length", "18446744073709551616")], limits: .standard) == 413)
        var huge = HTTPLimits.standard
        huge.maxBodyBytes = Int.max
        #expect(status([NamedValue("content-length", "92233720368547758070")], limits: huge) == 413, "overflow")
    }

    @Test(
        "a Content-Length that is not digits, or two different ones, is 400",
        arguments: [["-1"], ["1.5"], [" 5"], ["5, 5"], [""], ["0x10"], ["5", "6"]])
    func malformed(values: [String]) {
        #expect(status(values.map { NamedValue("content-length", $0) }) == 400)
    }

    @Test("any Transfer-Encoding is 411: only announced bodies are read")
    func chunked() {
        #expect(status([NamedValue("transfer-encoding", "chunked")]) == 411)
        #expect(status([NamedValue("transfer-encoding", "chunked"), NamedValue("content-length", "5")]) == 411)
    }
}
