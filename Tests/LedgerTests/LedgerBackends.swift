import Foundation
@testable import Ledger
import PostgresClient
import Testing

/// The two ledgers the suite runs on. PostgreSQL runs when IAPSCREEN_TEST_POSTGRES names a
/// server (`scripts/postgres-test-cluster.sh start` prints one; `.ci/run` sets it).
enum LedgerBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// SQLite always; PostgreSQL when a server is given.
    static var available: [LedgerBackend] { TestServer.uri == nil ? [.sqlite] : [.sqlite, .postgres] }
}

enum TestServer {
    static let variable = "IAPSCREEN_TEST_POSTGRES"

    /// A superuser URI of the test server, or nil when none is given.
    static var uri: String? {
        guard let uri = ProcessInfo.processInfo.environment[variable], !uri.isEmpty else { return nil }
        return uri
    }

    /// The server, or: off CI, this test is skipped saying how to give one; on CI (`CI` set), it fails.
    static func required() throws -> String {
        if let uri { return uri }
        let message = "\(variable) is not set: the PostgreSQL ledger tests are skipped "
            + "(export \(variable)=$(scripts/postgres-test-cluster.sh start) runs them)"
        if !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty { throw TestServerMissing(message: message) }
        try Test.cancel(Comment(rawValue: message))
    }

    /// `uri` with another database, user or password.
    static func uri(_ base: String, database: String? = nil, user: String? = nil, password: String? = nil) throws -> String {
        guard var parts = URLComponents(string: base) else { throw TestServerMissing(message: "\(variable) is no URI") }
        if let database { parts.path = "/" + database }
        if let user { parts.user = user }
        if let password { parts.password = password }
        guard let uri = parts.string else { throw TestServerMissing(message: "cannot build a URI from \(base)") }
        return uri
    }
}

struct TestServerMissing: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A database of its own on the test server, dropped afterwards, so tests run in parallel.
final class TestDatabase {
    let name = "ledger_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let server: String
    let uri: String

    init() throws {
        server = try TestServer.required()
        try PostgresConnection(uri: server).execute("CREATE DATABASE \(name)")
        uri = try TestServer.uri(server, database: name)
    }

    deinit { drop() }

    /// Drops it now (its connections closed by the server), e.g. before a role it holds objects of.
    func drop() {
        try? PostgresConnection(uri: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// SQL straight on the database, beside the ledger.
    func sql(_ sql: String) throws {
        try PostgresConnection(uri: uri).execute(sql)
    }
}

/// Where one test keeps its ledger, on either backend: a file in a scratch directory, or
/// a database of its own.
final class LedgerPlace {
    let backend: LedgerBackend
    private let scratch: Scratch?
    private let database: TestDatabase?

    init(_ backend: LedgerBackend) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            scratch = try Scratch()
            database = nil
        case .postgres:
            scratch = nil
            database = try TestDatabase()
        }
    }

    /// Opens the ledger (a new connection each time: opening again is reopening).
    func open(readOnly: Bool = false, creating: Bool = true) throws -> any LedgerStore {
        if let database { return try PostgresLedger(uri: database.uri, readOnly: readOnly, creating: creating) }
        return try SQLiteLedger(path: sqlitePath, readOnly: readOnly, creating: creating)
    }

    private var sqlitePath: String { (scratch?.path("l.sqlite")) ?? "" }

    /// From now on, inserting the refund of `key` fails, as a full disk would, half way
    /// through a night's update.
    func failRefunds(ofKey key: String) throws {
        if let database {
            try database.sql("""
                CREATE FUNCTION iapscreen.fail() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.key = '\(key)' THEN RAISE EXCEPTION 'disk gone'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER fail BEFORE INSERT ON iapscreen.refunds FOR EACH ROW EXECUTE FUNCTION iapscreen.fail();
                """)
        } else {
            try rawSQL(sqlitePath, "CREATE TRIGGER fail BEFORE INSERT ON refunds WHEN NEW.key = '\(key)' "
                + "BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
        }
    }
}
