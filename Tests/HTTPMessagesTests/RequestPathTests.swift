import HTTPMessages
import Testing

@Suite("Request paths: decoded segments, and nothing that could name a file outside a directory")
struct RequestPathTests {
    private func code(_ path: String, limits: HTTPLimits = .standard) -> HTTPRequestError.Code? {
        do throws(HTTPRequestError) {
            _ = try RequestPath.segments(path, limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("a path is its segments, percent-decoded as UTF-8, empty ones kept")
    func segments() throws {
        #expect(try RequestPath.segments("/") == [])
        #expect(try RequestPath.segments("/queue") == ["queue"])
        #expect(try RequestPath.segments("/orders/A-1%20x") == ["orders", "A-1 x"])
        #expect(try RequestPath.segments("/a//b/") == ["a", "", "b", ""])
        #expect(try RequestPath.segments("/caf%C3%A9/a+b") == ["café", "a+b"], "+ is a plus in a path")
        #expect(try RequestPath.segments("/..a/.b./...") == ["..a", ".b.", "..."])
    }

    /// Each rule of `RequestPath` and paths it refuses.
    static let refused: [(rule: String, paths: [String])] = [
        ("dot segments, also percent-encoded", ["/..", "/.", "/a/../b", "/%2e%2e", "/%2E.", "/.%2e/x", "/a/%2e"]),
        (
            "an encoded slash, backslash, NUL or control character in a segment",
            ["/a%2Fb", "/a%2fb", "/%5C..%5Cetc", "/a%00", "/a%0Ab", "/a%7F", "/a%1b"]
        ),
        (
            "bad percent escapes and invalid UTF-8",
            ["/a%", "/a%2", "/a%zz", "/%C3", "/%C0%AE%C0%AE", "/%ED%A0%80", "/%FF"]
        ),
        ("raw bytes a path may not hold, before decoding", ["/a b", "/a\\b", "/a#b", "/é", "/a\tb"]),
    ]

    @Test("paths that could name something else than a file inside a directory are refused", arguments: refused)
    func refusedPaths(rule: String, paths: [String]) {
        for path in paths {
            #expect(code(path) == .badPath, "\(rule): \(path)")
        }
    }

    @Test("a path must begin with /")
    func relative() {
        #expect(code("queue") == .badTarget)
        #expect(code("") == .badTarget)
        #expect(code("*") == .badTarget)
        #expect(code("http://host/queue") == .badTarget)
    }

    @Test("more segments than the cap is 414")
    func tooManySegments() {
        #expect(code("/a/b/c/d/e/f/g/h", limits: .small) == nil)
        #expect(code("/a/b/c/d/e/f/g/h/i", limits: .small) == .targetTooLong)
    }

    @Test("an error names the offset of what was wrong, not its bytes")
    func offsets() throws {
        let error = try #require(throws: HTTPRequestError.self) { try RequestPath.segments("/ok/a%zz") }
        #expect(error.offset == 5)
        #expect(!error.reason.contains("zz"))
    }

    @Test("encoding segments gives a path that reads back as them; dot segments stay refused")
    func encode() throws {
        let segments = ["orders", "A 1?#%&;", "café", "~x_y-z.w", ""]
        let path = RequestPath.encode(segments)
        #expect(path == "/orders/A%201%3F%23%25%26%3B/caf%C3%A9/~x_y-z.w/")
        #expect(try RequestPath.segments(path) == segments)
        #expect(RequestPath.encode([]) == "/")
        #expect(RequestPath.encode(["a", "..", "."]) == "/a/%2E%2E/%2E", "a browser would resolve a plain ..")
        #expect(code(RequestPath.encode(["a", ".."])) == .badPath)
    }
}
