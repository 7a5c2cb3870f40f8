import Foundation
import HTTPMessages
import HTTPServer
import Testing

@Suite("TLS: served with a certificate and key the test makes, refused with a typed error when MHD refuses them")
struct TLSTests {
    /// A directory with an EC P-256 key and a self-signed certificate for 127.0.0.1, made by
    /// the `openssl` command (OpenSSL 3: `req -x509 -addext`); `names` picks more of them.
    private final class Credentials {
        let directory: URL

        init(_ names: [String] = ["server"]) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("http-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for name in names {
                let (status, output) = try run(
                    "openssl",
                    [
                        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", path("\(name)-key.pem"), "-out", path("\(name)-cert.pem"), "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    ])
                guard status == 0 else { throw ClientError("openssl req: \(output)") }
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

        func tls(certificate: String = "server-cert.pem", key: String = "server-key.pem") throws -> TLSCredentials {
            TLSCredentials(certificatePEM: try bytes(certificate), keyPEM: try bytes(key))
        }
    }

    @Test("a request over TLS, verified against the certificate, is answered")
    func served() throws {
        let credentials = try Credentials()
        let tls = try credentials.tls()
        let server = try startServer { $0.tls = tls }
        defer { server.stop() }
        let request = "GET /over/tls?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let (status, output) = try run(
            "openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", credentials.path("server-cert.pem"),
                "-verify_return_error", "-verify_ip", "127.0.0.1", "-quiet",
            ], input: request)
        #expect(status == 0, "\(output)")
        #expect(output.contains("HTTP/1.1 200 OK"), "\(output)")
        #expect(output.contains(#""path":["over","tls"]"#), "\(output)")
    }

    @Test("plain HTTP sent to a TLS server gets no HTTP answer")
    func plainToTLS() throws {
        let tls = try Credentials().tls()
        let server = try startServer { $0.tls = tls }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.response() == nil)
    }

    @Test("a certificate or key that libmicrohttpd refuses is tlsRefused, with GnuTLS's words")
    func refused() throws {
        let credentials = try Credentials(["server", "other"])
        let good = try credentials.tls()
        let cases = [
            ("a key of another certificate", try credentials.tls(key: "other-key.pem")),
            ("no PEM at all", TLSCredentials(certificatePEM: Array("not a certificate".utf8), keyPEM: good.keyPEM)),
            (
                "a certificate for a key",
                TLSCredentials(certificatePEM: good.certificatePEM, keyPEM: good.certificatePEM)
            ),
            ("empty", TLSCredentials(certificatePEM: [], keyPEM: [])),
        ]
        for (name, tls) in cases {
            let error = #expect(throws: HTTPServerError.self, "\(name)") { try startServer { $0.tls = tls } }
            #expect(error?.code == .tlsRefused, "\(name): \(String(describing: error))")
            #expect(error?.reason.isEmpty == false)
        }
    }
}

/// Runs `tool` (found on PATH) with `input` on its stdin: its exit status and stdout and stderr, killed after 20 s.
func run(_ tool: String, _ arguments: [String], input: String = "") throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let watchdog = DispatchWorkItem { process.terminate() }
    DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    watchdog.cancel()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}
