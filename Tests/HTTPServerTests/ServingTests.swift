import Foundation
import HTTPMessages
import HTTPServer
import JSONText
import Testing

@Suite("Serving: requests handed over whole, answers sent back")
struct ServingTests {
    @Test("a GET: method, target, decoded path and query, lower-cased headers, cookies and the peer")
    func get() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send(
            "GET /orders/A%201?status=open&rule=R1&rule=R2 HTTP/1.1\r\nHost: x\r\nX-Twice: 1\r\nx-twice: 2\r\n"
                + "Cookie: __Host-iapscreen=abc; theme=dark\r\n\r\n")
        let response = try #require(client.response())
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        let echoed = try #require(try JSONParser.parse(response.body).object)
        #expect(echoed["method"]?.string == "GET")
        #expect(echoed["target"]?.string == "/orders/A%201?status=open&rule=R1&rule=R2")
        #expect(echoed["path"] == .array([.string("orders"), .string("A 1")]))
        #expect(echoed["query"]?.array?.count == 3)
        #expect(echoed["cookies"]?.array?.first == .array([.string("__Host-iapscreen"), .string("abc")]))
        #expect(echoed["peer"]?.string == "127.0.0.1")
        let headers = echoed["headers"]?.array ?? []
        #expect(headers.contains(.array([.string("x-twice"), .string("1")])))
        #expect(headers.contains(.array([.string("x-twice"), .string("2")])))
    }

    @Test("a POST's body arrives whole, however it was cut; the connection serves the next request")
    func post() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let body = String(repeating: "0123456789", count: 3000)
        client.send("POST /api/v1/notes HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        for piece in Array(body.utf8).chunked(by: 7000) {
            client.send(Array(piece))
            usleep(20_000)
        }
        let first = try #require(client.response())
        #expect(try JSONParser.parse(first.body).object?["body"]?.string == body)
        client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try #require(client.response())
        #expect(try JSONParser.parse(second.body).object?["path"] == .array([.string("again")]))
    }

    @Test("headers the handler adds are sent, repeats kept; a header with a line break becomes a 500")
    func responseHeaders() throws {
        let server = try startServer(handler: { request in
            if request.path == ["bad"] { return HTTPResponse.text("x").adding("X-Injected", "a\r\nSet-Cookie: evil=1") }
            return HTTPResponse.redirect(to: "/queue").adding("Set-Cookie", "a=1").adding("Set-Cookie", "b=2")
        })
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        let redirect = try #require(client.response())
        #expect(redirect.status == 303)
        #expect(redirect.header("Location") == "/queue")
        #expect(redirect.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1", "b=2"])
        let other = try RawClient(port: server.port)
        other.send("GET /bad HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try #require(other.response())
        #expect(refused.status == 500)
        #expect(refused.header("Set-Cookie") == nil)
    }

    @Test("many clients at once are all answered")
    func concurrentClients() async throws {
        let server = try startServer()
        defer { server.stop() }
        let port = server.port
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 0..<40 {
                group.addTask {
                    let connection = try RawClient(port: port)
                    var ok = 0
                    for n in 0..<5 {
                        connection.send("GET /c/\(client)/\(n) HTTP/1.1\r\nHost: x\r\n\r\n")
                        let response = connection.response()
                        let path = response.flatMap { try? JSONParser.parse($0.body).object?["path"] }
                        if path == .array([.string("c"), .string("\(client)"), .string("\(n)")]) { ok += 1 }
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 200)
    }
}

extension Array {
    func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
