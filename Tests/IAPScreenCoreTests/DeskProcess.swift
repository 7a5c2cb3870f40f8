import Foundation
import LoopbackHTTP
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen desk serve` as an operator starts it, on a port of its own: the tests talk to it
/// over loopback and stop it with SIGTERM, as a service manager would.
final class DeskProcess {
    let process: Process
    let port: Int
    private let errPipe: Pipe
    private(set) var said = ""

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(ledger: String, extra: [String] = [], in directory: String? = nil) throws {
        let p = Process()
        p.executableURL = Tool.binary
        p.arguments = ["desk", "serve", "--ledger", ledger, "--listen", "127.0.0.1:0"] + extra
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        errPipe = Pipe()
        p.standardError = errPipe
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        process = p
        let handle = errPipe.fileHandleForReading
        var text = ""
        while !(text.contains("serving") && text.contains("\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        said = text
        guard let r = text.range(of: "127.0.0.1:"), let port = Int(text[r.upperBound...].prefix { $0.isNumber }) else {
            p.terminate()
            throw Failure(description: "desk serve did not say where it listens: \(text)")
        }
        self.port = port
    }

    func client() -> LoopbackHTTPClient { LoopbackHTTPClient(port: port) }

    /// SIGTERM, then its exit status and what it said on stderr.
    func stop() -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, SIGTERM)
        let rest = errPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        said += String(decoding: rest, as: UTF8.self)
        return (process.terminationStatus, said)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Logs in through the form as a browser does; the client keeps the session's cookie.
    /// Returns the session's CSRF token.
    static func login(_ client: LoopbackHTTPClient, _ name: String, password: String = DeskProcess.password) throws
        -> String
    {
        let form = try client.request("GET", "/login")
        guard let csrf = ResponseFields.hidden("csrf", in: form.text) else {
            throw Failure(description: "no csrf field on /login")
        }
        let body = "username=\(name)&password=\(password.replacingOccurrences(of: " ", with: "+"))&csrf=\(csrf)"
        let answer = try client.request(
            "POST", "/login", body: Array(body.utf8), contentType: "application/x-www-form-urlencoded")
        guard answer.status == 303 else {
            throw Failure(description: "login of \(name): \(answer.status) \(answer.text)")
        }
        let me = try client.request("GET", "/api/v1/me")
        guard let token = ResponseFields.jsonString("csrf", in: me.text) else {
            throw Failure(description: "no csrf in /api/v1/me")
        }
        return token
    }

    static let password = "correct horse battery staple"

    /// `desk user add NAME --role ROLE`, the password on stdin.
    static func addUser(_ name: String, _ role: String, ledger: String) throws {
        let run = try Tool.run(
            ["desk", "user", "add", name, "--role", role, "--ledger", ledger], stdin: Data((password + "\n").utf8))
        guard run.status == 0 else { throw Failure(description: "desk user add \(name): \(run.stderr)") }
    }
}
