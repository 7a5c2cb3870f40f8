import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@testable import Ledger

/// The two ledgers the suite runs on. PostgreSQL runs on the test server (TestServer: the one
/// IAPSCREEN_TEST_POSTGRES names, else a throwaway cluster the tests start).
enum LedgerBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// SQLite always; PostgreSQL whenever its tests run (TestServer.runsTests: on CI always, so
    /// that a missing server fails them). Without it the PostgreSQL cases are left out, not
    /// cancelled, which the console would not show: the tests of PostgreSQL alone say why.
    static let available: [LedgerBackend] = TestServer.runsTests ? [.sqlite, .postgres] : [.sqlite]
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

    /// The desk's side of the same ledger, on a connection of its own (the ledger opened first).
    func openDesk() throws -> any DeskStore {
        _ = try open()
        if let database { return try PostgresDeskStore(uri: database.uri) }
        return try SQLiteDeskStore(path: sqlitePath)
    }

    private var sqlitePath: String { (scratch?.path("l.sqlite")) ?? "" }

    /// The SQLite ledger's run lock, as a run holds it.
    func sqliteLock() throws -> LedgerLock { try LedgerLock(ledgerPath: sqlitePath) }

    /// From now on, inserting the refund of `key` fails, as a full disk would, half way
    /// through a night's update.
    func failRefunds(ofKey key: String) throws {
        if let database {
            try database.sql(
                """
                CREATE FUNCTION iapscreen.fail() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.key = '\(key)' THEN RAISE EXCEPTION 'disk gone'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER fail BEFORE INSERT ON iapscreen.refunds FOR EACH ROW EXECUTE FUNCTION iapscreen.fail();
                """)
        } else {
            try rawSQL(
                sqlitePath,
                "CREATE TRIGGER fail BEFORE INSERT ON refunds WHEN NEW.key = '\(key)' "
                    + "BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
        }
    }
}
