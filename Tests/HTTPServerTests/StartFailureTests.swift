import Foundation
import HTTPMessages
import HTTPServer
import Testing

@Suite("Start failures are typed errors with their reason")
struct StartFailureTests {
    private func code(_ start: () throws -> HTTPServer) -> HTTPServerError.Code? {
        do {
            _ = try start()
            return nil
        } catch let error as HTTPServerError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test("an address another server listens on is addressInUse, with the system's words")
    func addressInUse() throws {
        let first = try startServer()
        defer { first.stop() }
        let error = try #require(throws: HTTPServerError.self) {
            try startServer { $0.listen = try ListenAddress(parsing: "127.0.0.1:\(first.port)") }
        }
        #expect(error.code == .addressInUse)
        #expect(error.reason.contains("in use"), "\(error)")
    }

    @Test("an address that is not this host's is cannotListen")
    func notOurs() throws {
        let error = try #require(throws: HTTPServerError.self) {
            try startServer { $0.listen = try ListenAddress(parsing: "192.0.2.1:8080") }
        }
        #expect(error.code == .cannotListen)
    }

    @Test("settings out of range are badConfiguration")
    func configuration() {
        #expect(code { try startServer { $0.threads = 0 } } == .badConfiguration)
        #expect(code { try startServer { $0.connectionLimit = 1 } } == .badConfiguration)
        #expect(code { try startServer { $0.connectionTimeoutSeconds = 0 } } == .badConfiguration)
        #expect(code { try startServer { $0.connectionMemoryLimit = Int(UInt32.max) + 1 } } == .badConfiguration)
    }
}

@Suite("Listen addresses: HOST:PORT and [IPv6]:PORT")
struct ListenAddressTests {
    @Test("IPv4, localhost and IPv6 addresses with their ports; which are loopback")
    func parsing() throws {
        let v4 = try ListenAddress(parsing: "127.0.0.1:8080")
        #expect(v4.port == 8080 && !v4.isIPv6 && v4.isLoopback)
        #expect(v4.description == "127.0.0.1:8080")
        #expect(try ListenAddress(parsing: "localhost:0") == ListenAddress(parsing: "127.0.0.1:0"))
        #expect(try ListenAddress(parsing: "127.8.9.10:1").isLoopback)
        #expect(try !ListenAddress(parsing: "0.0.0.0:443").isLoopback)
        #expect(try !ListenAddress(parsing: "10.1.2.3:443").isLoopback)
        let v6 = try ListenAddress(parsing: "[::1]:65535")
        #expect(v6.isIPv6 && v6.isLoopback && v6.port == 65535)
        #expect(v6.description == "[::1]:65535")
        #expect(try !ListenAddress(parsing: "[::]:80").isLoopback)
        #expect(try ListenAddress(parsing: "[2001:db8::1]:80").description == "[2001:db8::1]:80")
    }

    @Test(
        "anything else is badAddress",
        arguments: [
            "127.0.0.1", "127.0.0.1:", ":8080", "example.com:80", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80",
            "127.0.0.1:８０", "[::1]80", "[::1]", "::1:80", "[127.0.0.1]:80", "[::1]:80x", "1.2.3:80", "",
        ])
    func refused(text: String) {
        let error = #expect(throws: HTTPServerError.self) { try ListenAddress(parsing: text) }
        #expect(error?.code == .badAddress)
    }

    @Test("a server listens on [::1] at a port of its own")
    func ipv6Server() throws {
        let server = try startServer { $0.listen = try ListenAddress(parsing: "[::1]:0") }
        defer { server.stop() }
        #expect(server.port > 0)
    }
}
