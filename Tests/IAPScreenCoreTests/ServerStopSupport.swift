import Foundation
import PostgresClient

// What the tests that stop a PostgreSQL server in the middle of a run share (an unsharded run's
// in PostgresLedgerScreenTests, a sharded run's in ShardedServerStopTests): a cluster of the
// test's own to stop, a run waited for on a thread of its own, and the ledger's rows counted.

/// What a PostgreSQL ledger holds, counted straight in its tables.
struct LedgerRows: Equatable {
    var claims: Int64, reported: Int64, runs: Int64, events: Int64, refunds: Int64

    static func count(_ uri: String) throws -> LedgerRows {
        let r = try PostgresConnection(uri: uri).query(
            """
            SELECT (SELECT count(*) FROM iapscreen.claims), (SELECT count(*) FROM iapscreen.reported),
                   (SELECT count(*) FROM iapscreen.runs), (SELECT count(*) FROM iapscreen.store_events),
                   (SELECT count(*) FROM iapscreen.refunds)
            """)
        return LedgerRows(
            claims: try r.int64(0, 0) ?? -1, reported: try r.int64(0, 1) ?? -1, runs: try r.int64(0, 2) ?? -1,
            events: try r.int64(0, 3) ?? -1, refunds: try r.int64(0, 4) ?? -1)
    }

    /// Whether a session holds the run lock (PostgresRunLock's key, "iaps" then 2).
    static let runLockHeld = """
        SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
                       AND classid::bigint = x'69617073'::bigint AND objid::bigint = 2)
        """
}

/// A PostgreSQL cluster of this test's own (scripts/postgres-test-cluster.sh with a state
/// file of its own), so stopping its server disturbs no other test. This process owns it, so
/// the script's watcher stops it even if the process dies before `stop`.
final class OwnCluster {
    private let scratch: Scratch
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-cluster.sh").path

    struct Failure: Error {
        var message: String
    }

    init() throws {
        scratch = try Scratch()
    }

    /// Starts it (again, with its data, after `crash`) and gives its URI.
    func start() throws -> String {
        let r = try run("start")
        let uri = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard r.status == 0, uri.hasPrefix("postgres://") else {
            throw Failure(message: "cannot start a cluster: \(r.stderr)")
        }
        return uri
    }

    /// Stops its server at once, as a server that dies.
    func crash() throws {
        let r = try run("crash")
        guard r.status == 0 else { throw Failure(message: "cannot stop the cluster: \(r.stderr)") }
    }

    func stop() {
        _ = try? run("stop")
    }

    private func run(_ command: String) throws -> ToolRun {
        try Tool.runProgram(
            "/bin/bash", [OwnCluster.script, command],
            environment: [
                "IAPSCREEN_TEST_CLUSTER_STATE": scratch.file("cluster"), "IAPSCREEN_TEST_CLUSTER_OWNER": "\(getpid())",
            ])
    }
}

/// A run on a thread of its own, waited for later.
final class AsyncRun: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<ToolRun, Error>?
    /// Set when the run had ended before the first `wait` (or `isDone`) found it.
    private(set) var finishedBeforeCrash = false

    init(_ body: @escaping @Sendable () throws -> ToolRun) {
        // A Thread, not the global queue: on Linux its pool has a thread per core and adds one
        // only after a while, so the third of three runs started at once would start late.
        Thread { [self] in
            let r = Result { try body() }
            lock.withLock { result = r }
            done.signal()
        }.start()
    }

    var isDone: Bool {
        let ended = lock.withLock { result != nil }
        if ended { finishedBeforeCrash = true }
        return ended
    }

    func wait() throws -> ToolRun {
        done.wait()
        return try lock.withLock { result }?.get() ?? ToolRun(status: -1, stdout: "", stderr: "no result")
    }
}
