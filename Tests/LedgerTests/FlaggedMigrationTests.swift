import Foundation
import IAPBasics
import PostgresTestSupport
import Testing

@testable import Ledger

/// A schema 4 ledger kept each finding of a flagged order as a row of `flagged_findings` and
/// the latest receipt on the order's row. Opened by this build it becomes schema 5: every
/// line, receipt and run's rules reach the desk as before, and the next run's blocks sit
/// beside the migrated ones.
@Suite("Flagged orders kept before blocks (schema 4)")
struct FlaggedMigrationTests {
    static let odd = "a\"\n\u{1E}<b>"
    static let receipt = #"[["transaction","1001"]]"#

    /// Two runs: the odd order flagged by both (r1, then r2 and r1), b by the second only.
    static let rows = """
        INSERT INTO runs(id, started_at, finished_at, orders, flagged) VALUES
            (1, '2024-03-01T00:00:00Z', '2024-03-01T00:01:00Z', 2, 1),
            (2, '2024-03-02T00:00:00Z', '2024-03-02T00:01:00Z', 2, 2);
        INSERT INTO flagged_orders(order_id, user_id, platform, product_id, amount, currency, created_at, severity,
            rules, receipt, first_run, first_flagged_at, last_run, last_flagged_at, decided) VALUES
            ('\(odd)', 'u1', 'ios', 'coins', '4.99', 'USD', NULL, 4, ' r1 r2 ', '\(receipt)', 1,
             '2024-03-01T00:01:00Z', 2, '2024-03-02T00:01:00Z', 0),
            ('b', 'u2', 'android', 'gems', '1.99', 'EUR', NULL, 2, ' r3 ', NULL, 2, '2024-03-02T00:01:00Z', 2,
             '2024-03-02T00:01:00Z', 0);
        INSERT INTO flagged_findings(order_id, run, n, rule, line) VALUES
            ('\(odd)', 1, 0, 'r1', '{"rule":"r1","night":1}'),
            ('\(odd)', 2, 0, 'r2', '{"rule":"r2","x":"\\u001e"}'),
            ('\(odd)', 2, 1, 'r1', '{"rule":"r1","night":2}'),
            ('b', 2, 0, 'r3', '{"rule":"r3"}');
        """

    func expectMigrated(_ desk: LedgerDeskStore) throws {
        let a = try #require(try desk.dossier(of: Self.odd, now: 0))
        #expect(a.findings == [#"{"rule":"r2","x":"\u001e"}"#, #"{"rule":"r1","night":2}"#])
        #expect(a.receipt == Self.receipt)
        #expect(a.history.map(\.run) == [1, 2] && a.history.map(\.rules) == [["r1"], ["r1", "r2"]])
        let b = try #require(try desk.dossier(of: "b", now: 0))
        #expect(b.findings == [#"{"rule":"r3"}"#] && b.receipt == nil)
        #expect(try desk.queue(QueueFilter(status: .all), now: 0).orders.map(\.flagged.orderID) == [Self.odd, "b"])
    }

    /// A third run flags b again: its lines come from the new run's block.
    func thirdRun(_ ledger: any LedgerStore, _ desk: () throws -> LedgerDeskStore) throws {
        let again = FlaggedOrderRecord(
            orderID: "b", userID: "u2", platform: "android", productID: "gems", amount: "1.99", currency: "EUR",
            createdAt: nil, severity: 3, rules: ["r4"], transactions: [], receipt: "[]",
            findings: [("r4", #"{"rule":"r4"}"#)])
        try ledger.record(
            RunRecord(
                startedAt: Timestamp(clampingMillis: 1_709_510_400_000),
                finishedAt: Timestamp(clampingMillis: 1_709_510_460_000), orders: 1, flagged: 1, newClaims: [],
                reported: [], flaggedOrders: [again]))
        let b = try #require(try desk().dossier(of: "b", now: 0))
        #expect(b.findings == [#"{"rule":"r4"}"#] && b.receipt == "[]")
        #expect(b.history.map(\.rules) == [["r3"], ["r4"]])
    }

    @Test("SQLite: every line, receipt and run's rules reach the desk after the migration")
    func sqlite() throws {
        let scratch = try Scratch()
        let path = scratch.path("v4.sqlite")
        _ = try SQLiteLedger(path: path)
        try rawSQL(
            path,
            """
            DROP TRIGGER flagged_orders_history; DROP TABLE flagged_history; DROP TABLE flagged_blocks;
            ALTER TABLE flagged_orders DROP COLUMN block;
            ALTER TABLE flagged_orders ADD COLUMN receipt TEXT;
            CREATE TABLE flagged_findings(order_id TEXT NOT NULL, run INTEGER NOT NULL, n INTEGER NOT NULL,
                                          rule TEXT NOT NULL, line TEXT NOT NULL,
                                          PRIMARY KEY(order_id, run, n)) WITHOUT ROWID;
            PRAGMA user_version = 4;
            """ + Self.rows)
        // Read-only, a schema 4 desk is neither read nor copied: it says so.
        #expect {
            try SQLiteLedger(path: path, readOnly: true).exportRows(batch: 10) { _ in }
        } throws: { ($0 as? LedgerError)?.message.contains("is at schema 4 and was opened read-only") == true }
        let ledger = try SQLiteLedger(path: path)
        #expect(try ledger.storedSchemaVersion() == 5)
        try expectMigrated(SQLiteDeskStore(path: path))
        try thirdRun(ledger) { try SQLiteDeskStore(path: path) }
    }

    @Test("PostgreSQL: every line, receipt and run's rules reach the desk after the migration")
    func postgres() throws {
        let database = try TestDatabase()
        _ = try PostgresLedger(uri: database.uri)
        try database.sql(
            """
            SET search_path TO iapscreen;
            DROP TABLE flagged_history, flagged_blocks;
            DROP TRIGGER flagged_orders_history ON flagged_orders; DROP FUNCTION flagged_orders_history();
            ALTER TABLE flagged_orders DROP COLUMN block;
            ALTER TABLE flagged_orders ADD COLUMN receipt text;
            CREATE TABLE flagged_findings(order_id text COLLATE "C" NOT NULL, run bigint NOT NULL, n integer NOT NULL,
                                          rule text NOT NULL, line text NOT NULL, PRIMARY KEY(order_id, run, n));
            UPDATE schema_version SET version = 4;
            """ + Self.rows + "SELECT setval(pg_get_serial_sequence('iapscreen.runs', 'id'), 2);")
        let ledger = try PostgresLedger(uri: database.uri)
        #expect(try ledger.storedSchemaVersion() == 5)
        try expectMigrated(PostgresDeskStore(uri: database.uri))
        try thirdRun(ledger) { try PostgresDeskStore(uri: database.uri) }
    }
}
