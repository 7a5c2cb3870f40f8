import Foundation
import PostgresClient
import Synchronization
import Testing

// The test PostgreSQL server, for every test target that needs one: the libpq adapter's tests,
// the ledger's tests and the commands' end-to-end tests. It is the server IAPSCREEN_TEST_POSTGRES
// names, else a throwaway cluster of this test process's own (scripts/postgres-test-cluster.sh),
// started when the first test asks for it and stopped when the process ends.

public enum TestServer {
    public static let variable = "IAPSCREEN_TEST_POSTGRES"

    /// Where PostgreSQL 15's server programs are (Debian's postgresql-15, which
    /// `scripts/install-deps.sh --test-tools` installs).
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// The server IAPSCREEN_TEST_POSTGRES names, or nil.
    public static var named: String? {
        guard let uri = ProcessInfo.processInfo.environment[variable], !uri.isEmpty else { return nil }
        return uri
    }

    /// Whether a throwaway cluster can be started here.
    public static var canStartCluster: Bool { FileManager.default.isExecutableFile(atPath: binaries + "/initdb") }

    /// Whether the tests that need the server run: it is named or can be started, or this is CI,
    /// where they must run (and fail without it).
    public static var runsTests: Bool { named != nil || canStartCluster || onCI }

    static var onCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// A superuser URI of the test server: the one named, else this process's own cluster (started
    /// on the first call). When neither can be had: off CI, this test is skipped saying why; on CI
    /// (`CI` set), it fails. A cluster that cannot be started although the programs are here fails.
    public static func required() throws -> String {
        if let named { return named }
        try requireClusterPrograms()
        return try ProcessCluster.started.get()
    }

    /// Skips this test (fails it on CI) unless PostgreSQL's server programs are installed: for a
    /// test that starts a cluster of its own (`skipped` says what is skipped).
    public static func requireClusterPrograms(skipped: String = "the PostgreSQL tests are skipped") throws {
        if canStartCluster { return }
        try skipOrFail(
            "PostgreSQL 15's server programs are not installed (no \(binaries)/initdb): \(skipped) "
                + "(scripts/install-deps.sh --test-tools installs them; or name a server in \(variable))")
    }

    private static func skipOrFail(_ message: String) throws -> Never {
        if onCI { throw TestServerMissing(message: "CI is set, so this is a failure: " + message) }
        try Test.cancel(Comment(rawValue: message))
    }

    /// How long a test waits for what it waits for before it takes it for a hang: ten minutes,
    /// far past what any slow hour takes, so that it never measures the machine's speed.
    public static let hangCap: TimeInterval = 600

    /// Asks `condition` again and again until it holds (true) or `hangCap` has gone by (false):
    /// for what the server does in its own time, such as noticing that a session has gone.
    public static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let cap = Date().addingTimeInterval(hangCap)
        while true {
            if try condition() { return true }
            if Date() >= cap { return false }
            usleep(20_000)
        }
    }

    /// `uri` with another database, user or password.
    public static func uri(_ base: String, database: String? = nil, user: String? = nil, password: String? = nil) throws
        -> String
    {
        guard var parts = URLComponents(string: base) else { throw TestServerMissing(message: "\(variable) is no URI") }
        if let database { parts.path = "/" + database }
        if let user { parts.user = user }
        if let password { parts.password = password }
        guard let uri = parts.string else { throw TestServerMissing(message: "cannot build a URI from \(base)") }
        return uri
    }
}

/// The throwaway cluster of this test process: started once, on first use (a `static let` is
/// initialised once, the other threads waiting for it, so tests running in parallel share it),
/// and stopped at the process's end. Its state file is its own, so it is not a cluster a
/// developer started by hand. The script's watcher stops it too once this process has ended,
/// however it ended: an exit handler does not run when the process dies of a signal.
enum ProcessCluster {
    /// scripts/postgres-test-cluster.sh, found from this file's place in the checkout.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-cluster.sh").path

    static let state = NSTemporaryDirectory() + "iapscreen-test-cluster-\(getpid())-\(UUID().uuidString).state"

    static let started: Result<String, TestServerMissing> = start()

    private static func start() -> Result<String, TestServerMissing> {
        guard FileManager.default.fileExists(atPath: script) else {
            return .failure(TestServerMissing(message: "cannot start a test cluster: no \(script)"))
        }
        // Registered before the start: a start that fails half way leaves nothing either.
        atexit { ProcessCluster.stop() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [script, "start"]
        p.environment = ProcessInfo.processInfo.environment.merging([
            "IAPSCREEN_TEST_CLUSTER_STATE": state, "IAPSCREEN_TEST_CLUSTER_OWNER": "\(getpid())",
        ]) { $1 }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        do {
            try p.run()
        } catch {
            return .failure(TestServerMissing(message: "cannot run \(script): \(error)"))
        }
        // stderr read beside stdout, so that neither pipe fills while the other is read.
        let errorText = Mutex("")
        let readErrors = DispatchGroup()
        readErrors.enter()
        DispatchQueue.global().async {
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            errorText.withLock { $0 = text }
            readErrors.leave()
        }
        let uri = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        readErrors.wait()
        p.waitUntilExit()
        guard p.terminationStatus == 0, uri.hasPrefix("postgres://") else {
            let why = errorText.withLock { $0 }
            return .failure(TestServerMissing(message: "cannot start a test cluster (\(script) start): \(why)"))
        }
        return .success(uri)
    }

    /// `postgres-test-cluster.sh stop` for this cluster, waited for. It runs in an exit handler,
    /// so it spawns the script through libc rather than Foundation.
    private static func stop() {
        let arguments = ["/bin/bash", script, "stop"]
        var environment = ["IAPSCREEN_TEST_CLUSTER_STATE=" + state]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !text.hasPrefix("IAPSCREEN_TEST_CLUSTER_") { environment.append(text) }
            entry += 1
        }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/bash", nil, nil, &argv, &envp) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR { continue }
    }
}

public struct TestServerMissing: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A database of its own on the test server, dropped afterwards, so tests run in parallel.
public final class TestDatabase {
    public let name = "ledger_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    public let server: String
    public let uri: String

    public init() throws {
        server = try TestServer.required()
        try PostgresConnection(uri: server).execute("CREATE DATABASE \(name)")
        uri = try TestServer.uri(server, database: name)
    }

    /// Roles `role(password:)` made, dropped after the database.
    private var roles: [String] = []

    deinit { drop() }

    /// Drops it now (its connections closed by the server), then the roles made for it.
    public func drop() {
        try? PostgresConnection(uri: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        for role in roles { try? PostgresConnection(uri: server).execute("DROP ROLE IF EXISTS \(role)") }
        roles = []
    }

    /// A login role of its own that needs `password` (the test server asks every role but the
    /// superuser for one) and may use this database: for wrong-password tests.
    public func role(password: String) throws -> String {
        let role = "r_" + name
        try sql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'; GRANT ALL ON DATABASE \(name) TO \(role)")
        roles.append(role)
        return role
    }

    /// SQL straight on the database, beside the ledger.
    public func sql(_ sql: String) throws {
        try PostgresConnection(uri: uri).execute(sql)
    }
}
