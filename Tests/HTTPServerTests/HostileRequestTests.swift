import Foundation
import HTTPMessages
import HTTPServer
import Testing

@Suite("Hostile requests (CONTRACT §14): refused with their status, the handler never called, the server unharmed")
struct HostileRequestTests {
    /// A test server whose handler counts its calls; stopped when it goes.
    private final class Watched {
        let calls = Calls()
        let server: HTTPServer

        init(_ adjust: (inout HTTPServerConfiguration) throws -> Void = { _ in }) throws {
            server = try startServer(
                adjust,
                handler: { [calls] request in
                    calls.add()
                    return echo(request)
                })
        }

        deinit { server.stop() }

        func client() throws -> RawClient { try RawClient(port: server.port) }

        /// The status `request` is answered with, on a connection of its own; nil for no answer.
        func status(_ request: String) throws -> Int? {
            let client = try client()
            client.send(request)
            return client.response()?.status
        }

        var servesOthers: Bool { (try? status("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) == 200 }
    }

    @Test("a body announced over the cap is 413 before a byte of it is sent")
    func announcedBodyTooLarge() throws {
        let watched = try Watched()
        let client = try watched.client()
        client.send("POST /api/v1/notes HTTP/1.1\r\nHost: x\r\nContent-Length: \(1 << 20)\r\n\r\n")
        let response = try #require(client.response())
        #expect(response.status == 413)
        #expect(response.header("Connection") == "close")
        #expect(client.receiveAll().isEmpty, "the connection is closed after the answer")
        #expect(watched.calls.value == 0)
    }

    @Test("a body sent over the cap is 413 once its header is read: the server reads no more of it")
    func sentBodyTooLarge() throws {
        let watched = try Watched()
        let client = try watched.client()
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20)
        client.send("POST /api/v1/notes HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
        let wholeBodySent = client.send(body)
        #expect(client.response()?.status == 413)
        #expect(!wholeBodySent, "the server closed the connection instead of reading 8 MiB")
        #expect(watched.calls.value == 0)
        #expect(watched.servesOthers)
    }

    @Test(
        "a request target over the cap is 414, also one that overflows libmicrohttpd's memory",
        arguments: [9000, 300_000])
    func targetTooLong(length: Int) throws {
        let watched = try Watched()
        #expect(try watched.status("GET /\(String(repeating: "a", count: length)) HTTP/1.1\r\nHost: x\r\n\r\n") == 414)
        #expect(watched.calls.value == 0)
    }

    @Test("header fields over the cap are 431: one long field, many fields, or past libmicrohttpd's memory")
    func headersTooLarge() throws {
        let watched = try Watched()
        let requests = [
            "GET / HTTP/1.1\r\nX-Long: \(String(repeating: "a", count: 20_000))\r\n\r\n",
            "GET / HTTP/1.1\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n",
            "GET / HTTP/1.1\r\nX-Huge: \(String(repeating: "a", count: 300_000))\r\n\r\n",
            "GET / HTTP/1.1\r\n" + (0..<5000).map { "X-\($0): v\r\n" }.joined() + "\r\n",
            "GET / HTTP/1.1\r\nCookie: " + (0..<101).map { "c\($0)=v" }.joined(separator: "; ") + "\r\n\r\n",
        ]
        for request in requests {
            #expect(try watched.status(request) == 431)
        }
        #expect(watched.calls.value == 0)
    }

    @Test(
        "a malformed request line, header field or target is 400",
        arguments: [
            "GET /\r\n\r\n", "GET / http/1.1\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n", "GET queue HTTP/1.1\r\n\r\n",
            "GET /a%zz HTTP/1.1\r\n\r\n", "GET /%2e%2e/etc/passwd HTTP/1.1\r\n\r\n", "GET /a%2Fb HTTP/1.1\r\n\r\n",
            "GET /?q=%C3%28 HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\n", "GET / HTTP/1.1\r\nCookie: a=\u{1}\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
            // libmicrohttpd 0.9.75 sends the status line and header block of these twice.
            "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        ])
    func malformed(request: String) throws {
        let watched = try Watched()
        #expect(try watched.status(request) == 400)
        #expect(watched.calls.value == 0)
    }

    @Test("a Content-Length too large for any number is 413 (libmicrohttpd's own answer)")
    func contentLengthOverflows() throws {
        let watched = try Watched()
        #expect(try watched.status("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n") == 413)
        #expect(watched.calls.value == 0)
    }

    @Test("a body sent with Transfer-Encoding is 411: only bodies of an announced length are read")
    func chunked() throws {
        let watched = try Watched()
        let request = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        #expect(try watched.status(request) == 411)
        #expect(watched.calls.value == 0)
    }

    @Test("a line that is no request line at all is dropped without an answer (libmicrohttpd's way)")
    func garbage() throws {
        let watched = try Watched()
        let client = try watched.client()
        client.send("GARBAGE\r\n\r\n")
        #expect(client.closedSilently())
        #expect(watched.servesOthers)
    }

    @Test("a client that sends nothing is dropped after the timeout, and others are served meanwhile")
    func silentClient() throws {
        let watched = try Watched { $0.connectionTimeoutSeconds = 1 }
        let started = ContinuousClock.now
        let silent = try RawClient(port: watched.server.port, timeout: 10)
        let halfway = try RawClient(port: watched.server.port, timeout: 10)
        halfway.send("GET /slowly HTTP/1.1\r\nHost")
        for _ in 0..<5 { #expect(watched.servesOthers) }
        #expect(silent.closedSilently())
        #expect(halfway.closedSilently())
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(5), "\(waited)")
    }

    @Test("connections from one address past the per-IP limit are closed at once")
    func perAddressLimit() throws {
        let watched = try Watched { $0.perIPConnectionLimit = 2 }
        let first = try watched.client()
        let second = try watched.client()
        let third = try watched.client()
        #expect(third.closedSilently())
        for client in [first, second] {
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.response()?.status == 200)
        }
    }
}
