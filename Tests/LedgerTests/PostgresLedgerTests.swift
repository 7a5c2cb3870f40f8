import Foundation
import Ledger
import PostgresClient
import PostgresTestSupport
import Testing

@Suite("PostgreSQL ledger: its schema, its versions, and a server that cannot be used")
struct PostgresLedgerTests {
    @Test("the ledger is created in schema iapscreen on first use, at version 4 in its one-row table")
    func createdOnFirstUse() throws {
        let database = try TestDatabase()
        _ = try PostgresLedger(uri: database.uri)
        let db = try PostgresConnection(uri: database.uri)
        let tables = try db.query(
            "SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'iapscreen'")
        #expect(
            try tables.text(0, 0)
                == "claims consents desk_audit desk_login_failures desk_notes desk_orders desk_sessions desk_users "
                + "desk_verdicts flagged_blocks flagged_history flagged_keys flagged_orders refunds reported reviews runs "
                + "schema_version "
                + "store_events")
        #expect(try db.query("SELECT version FROM iapscreen.schema_version").int64(0, 0) == 5)
        // Opening again changes nothing.
        #expect(try PostgresLedger(uri: database.uri).storedSchemaVersion() == 5)
        #expect(try db.query("SELECT count(*) FROM iapscreen.schema_version").int64(0, 0) == 1)
    }

    @Test("runs opening a new database at the same moment create one ledger between them")
    func createdOnce() throws {
        let database = try TestDatabase()
        let failures = Failures()
        let uri = database.uri
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try PostgresLedger(uri: uri) } catch { failures.add("\(error)") }
        }
        #expect(failures.all.isEmpty)
        #expect(try PostgresLedger(uri: database.uri).storedSchemaVersion() == 5)
    }

    @Test("a ledger of a newer schema is refused, naming both versions, and left as it was")
    func newerSchemaRefused() throws {
        let database = try TestDatabase()
        try PostgresLedger(uri: database.uri).record(night(claims: [("1", claim("o1"))]))
        try database.sql("UPDATE iapscreen.schema_version SET version = 6")
        #expect {
            try PostgresLedger(uri: database.uri)
        } throws: { error in
            guard let error = error as? LedgerError else { return false }
            return error.code == .newerSchema
                && error.message.contains("was written by a newer iapscreen: schema 6, this one reads up to 5")
        }
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT version FROM iapscreen.schema_version").int64(0, 0) == 6)
        #expect(try db.query("SELECT count(*) FROM iapscreen.runs").int64(0, 0) == 1)
    }

    @Test("a schema iapscreen that holds other tables is not taken for a ledger; an empty one is used")
    func notALedger() throws {
        let database = try TestDatabase()
        try database.sql("CREATE SCHEMA iapscreen; CREATE TABLE iapscreen.users(id int)")
        #expect(
            opening(database.uri, fails: .notALedger)?.message.contains("no schema_version table (it has users)")
                == true)
        try database.sql("DROP TABLE iapscreen.users")
        #expect(try PostgresLedger(uri: database.uri).storedSchemaVersion() == 5)
    }

    @Test(
        "a creation that fails half way leaves the database as it was and says why; the next open, once it can, creates it"
    )
    func failedCreation() throws {
        let database = try TestDatabase()
        // A type where the claims table goes: the schema and several steps succeed, then this one fails.
        try database.sql("CREATE SCHEMA iapscreen; CREATE TYPE iapscreen.claims AS (x int)")
        let message = opening(database.uri, fails: .postgres)?.message ?? ""
        #expect(message.contains("cannot create the ledger in schema iapscreen of postgres://"), "\(message)")
        #expect(message.contains("relation \"claims\" already exists"), "\(message)")
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'iapscreen'").int64(0, 0) == 0)
        try database.sql("DROP TYPE iapscreen.claims")
        #expect(try PostgresLedger(uri: database.uri).storedSchemaVersion() == 5)
    }

    @Test("read-only: an empty database is no ledger, and a ledger is read but never written")
    func readOnly() throws {
        let database = try TestDatabase()
        #expect(throws: LedgerError.self) { try PostgresLedger(uri: database.uri, readOnly: true) }
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT to_regnamespace('iapscreen') IS NULL").bool(0, 0) == true)
        try PostgresLedger(uri: database.uri).record(night(claims: [("1", claim("o1"))]))
        let reader = try PostgresLedger(uri: database.uri, readOnly: true)
        #expect(try reader.claims(of: ["1"])["1"]?.orderID == "o1")
        // Many keys too, though a read-only session cannot stage them in a table.
        #expect(try reader.claims(of: (0..<50_000).map(String.init)).keys.sorted() == ["1"])
        let refused = expectLedgerError(.postgres) { try reader.record(night(claims: [("2", claim("o2"))])) }
        #expect(refused?.message.contains("read-only transaction") == true, "\(refused?.message ?? "")")
        #expect(try reader.claims(of: ["2"]).isEmpty)
    }

    @Test("a server that cannot be reached is a ledger error with libpq's words, and no password")
    func unreachable() throws {
        let server = try TestServer.required()
        let closed = try TestServer.uri(server, user: "night", password: "pa55-word")
            .replacingOccurrences(of: ":\(URLComponents(string: server)?.port ?? 0)/", with: ":1/")
        let error = opening(closed, fails: .postgres)
        let message = error?.message ?? ""
        #expect(
            message.contains("cannot open ledger: cannot connect to postgres://night@127.0.0.1:1/postgres: "),
            "\(message)")
        #expect(message.contains("Connection refused"), "\(message)")
        #expect(!message.contains("pa55-word"))
    }

    @Test("a wrong password is a ledger error with libpq's words, and neither password; the right one opens")
    func wrongPassword() throws {
        let database = try TestDatabase()
        let role = try database.role(password: "right-pw")
        let wrong = try TestServer.uri(database.uri, user: role, password: "wr%40ng-pw")
        let message = opening(wrong, fails: .postgres)?.message ?? ""
        #expect(message.contains("password authentication failed for user \"\(role)\""), "\(message)")
        #expect(!message.contains("wr%40ng-pw") && !message.contains("wr@ng-pw") && !message.contains("right-pw"))
        #expect(message.contains("postgres://\(role)@127.0.0.1:"))
        #expect(
            try PostgresLedger(uri: TestServer.uri(database.uri, user: role, password: "right-pw"))
                .storedSchemaVersion() == 5)
    }

    @Test("a server that goes away mid-run is a ledger error with libpq's words, not a crash")
    func serverGone() throws {
        let database = try TestDatabase()
        let ledger = try PostgresLedger(uri: database.uri)
        try ledger.record(night(claims: [("1", claim("o1"))]))
        try database.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND pid <> pg_backend_pid()")
        let error = expectLedgerError(.postgres) { _ = try ledger.claims(of: ["1"]) }
        #expect(
            error?.message.contains("terminating connection") == true
                || error?.message.contains("server closed") == true,
            "\(error?.message ?? "")")
        #expect(throws: LedgerError.self) { try ledger.record(night(claims: [("2", claim("o2"))])) }
        #expect(try PostgresLedger(uri: database.uri).claims(of: ["1", "2"]).keys.sorted() == ["1"])
    }
}

/// Opening the ledger at `uri` must fail with `code`; returns the error for its message.
private func opening(_ uri: String, fails code: LedgerError.Code, sourceLocation: SourceLocation = #_sourceLocation)
    -> LedgerError?
{
    expectLedgerError(code, sourceLocation: sourceLocation) { _ = try PostgresLedger(uri: uri) }
}

/// `body` must throw a LedgerError with `code`; returns it.
private func expectLedgerError(
    _ code: LedgerError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> LedgerError? {
    do {
        try body()
        Issue.record("no error", sourceLocation: sourceLocation)
        return nil
    } catch let error as LedgerError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("not a LedgerError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Errors gathered from several threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []
    func add(_ e: String) { lock.withLock { errors.append(e) } }
    var all: [String] { lock.withLock { errors } }
}

@Suite("PostgreSQL ledger: one run at a time")
struct PostgresRunLockTests {
    @Test(
        "a second run is refused, told the pid and host of the process that holds the ledger; free once that one ends")
    func secondRunRefused() throws {
        let database = try TestDatabase()
        var first: PostgresLedger? = try PostgresLedger(uri: database.uri)
        try first?.lockForRun()
        let second = try PostgresLedger(uri: database.uri)
        let message: String
        do {
            try second.lockForRun()
            message = ""
            Issue.record("the second run took the lock")
        } catch {
            #expect(error.code == .inUse)
            message = error.message
        }
        #expect(message.contains("is in use by another run: iapscreen \(getpid())@"), "\(message)")
        #expect(message.contains("server process "), "\(message)")
        // Reading needs no lock.
        #expect(try second.claims(of: ["1"]).isEmpty)
        first = nil
        // The server frees it once it notices the session has gone, in its own time.
        #expect(TestServer.eventually { (try? second.lockForRun()) != nil })
    }
}
