import Foundation
import IAPBasics
import Screening
import Testing

@testable import Ledger

@Suite("Ledger schema versions and the migration of older ledgers")
final class LedgerSchemaTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test("a new ledger, or an empty file, is created at schema 5")
    func freshLedger() throws {
        let path = scratch.path("new.sqlite")
        #expect(try SQLiteLedger(path: path).storedSchemaVersion() == 5)
        #expect(try rawUserVersion(path) == 5)
        #expect(SQLiteLedger.schemaVersion == 5)

        let empty = scratch.path("empty.sqlite")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(try SQLiteLedger(path: empty).storedSchemaVersion() == 5)
    }

    @Test(
        "a ledger written before schema versions is migrated on first open and keeps its claims, findings, reviews and runs"
    )
    func migratesTheOldLedger() throws {
        let path = try scratch.schema0Ledger()
        #expect(try rawUserVersion(path) == 0)
        let keys = try rawColumn(path, "SELECT key FROM claims ORDER BY key")
        let reported = try rawColumn(path, "SELECT order_id || ' ' || rule FROM reported")
        #expect(keys.count == 191)
        #expect(reported.count == 25)

        do {
            let ledger = try SQLiteLedger(path: path)
            #expect(try ledger.storedSchemaVersion() == 5)
            let claims = try ledger.claims(of: keys)
            #expect(claims.count == 191)
            #expect(
                claims["100000000000066"]
                    == Claim(
                        orderID: "ORD-1000001", userID: "user-10335",
                        createdAt: Timestamp(clampingMillis: 1_709_327_272_000)))
            #expect(claims["g:GPA.3326-0329-0000-00329"]?.orderID == "ORD-1000004")
            // What schema 0 never kept stays unknown.
            let detailed = try ledger.claimsWithDetails(of: keys)
            #expect(detailed.count == 191)
            #expect(detailed.values.allSatisfy { $0.details == .unknown })
            #expect(try ledger.claimKeys(forTokens: ["any"]).isEmpty)
            for pair in reported {
                let parts = pair.split(separator: " ").map(String.init)
                #expect(try ledger.wasReported(orderID: parts[0], rule: parts[1]), "\(pair)")
            }
            #expect(
                try ledger.review(of: "ORD-1000009")
                    == Review(
                        verdict: "legit", note: "refund reversed by support",
                        by: "fixture", at: "2026-12-01T12:18:34Z"))
            #expect(try ledger.review(of: "ORD-1000025")?.verdict == "fraud")
            #expect(try ledger.knows(orderID: "ORD-1000004"))
            #expect(try ledger.recentRuns(10).map { [$0.id, Int64($0.orders), Int64($0.flagged)] } == [[1, 197, 21]])

            // The night after the migration adds to it.
            try ledger.record(
                night(
                    claims: [("100000000000066", claim("ORD-2")), ("g:GPA.new", claim("ORD-3"))],
                    details: [
                        "g:GPA.new": ClaimDetails(
                            productID: "coins", amount: "0.99", currency: "EUR",
                            purchaseToken: "tok", platform: "android")
                    ],
                    events: [("uuid-1", "REFUND")]))
        }
        let reopened = try SQLiteLedger(path: path)
        #expect(try reopened.storedSchemaVersion() == 5)
        #expect(try reopened.claims(of: ["100000000000066"])["100000000000066"]?.orderID == "ORD-1000001")
        #expect(try reopened.claimKeys(forTokens: ["tok"]) == ["tok": "g:GPA.new"])
        #expect(try reopened.recentRuns(10).map(\.id) == [2, 1])
        #expect(try reopened.events(["uuid-1"])["uuid-1"]?.firstRun == 2)
    }

    @Test("a migrated ledger has the same tables, columns and indexes as a new one")
    func migratedEqualsNew() throws {
        let old = try scratch.schema0Ledger()
        let new = scratch.path("new.sqlite")
        _ = try SQLiteLedger(path: old)
        _ = try SQLiteLedger(path: new)
        let layout = """
            SELECT m.type || ' ' || m.name || ' ' || coalesce(p.name, '') || ' ' || coalesce(p.type, '') || ' '
                   || coalesce(p."notnull", '') || ' ' || coalesce(p.pk, '') || ' ' || coalesce(m.sql, '')
            FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p ON m.type = 'table'
            ORDER BY m.name, p.cid
            """
        let newLayout = try rawColumn(new, layout)
        #expect(try rawColumn(old, layout) == newLayout)
        #expect(
            newLayout.contains {
                $0.hasPrefix("index claims_by_token") && $0.contains("WHERE purchase_token IS NOT NULL")
            })
        #expect(newLayout.contains { $0.hasPrefix("table store_events identity TEXT 1 1") })
        #expect(newLayout.contains { $0.hasPrefix("table refunds refunded_at INTEGER 1 0") })
    }

    @Test("a ledger of a newer schema is refused, naming both versions, and left as it was")
    func newerSchemaRefused() throws {
        let path = scratch.path("future.sqlite")
        _ = try SQLiteLedger(path: path)
        try rawSQL(path, "CREATE TABLE wishes(what TEXT); PRAGMA user_version = 6;")
        let before = try bytes(path)
        let error = openingFails(path, .newerSchema)
        #expect(error?.message.contains("written by a newer iapscreen: schema 6, this one reads up to 5") == true)
        #expect(try bytes(path) == before)
    }

    @Test("a file that says schema 1, which no iapscreen wrote, is refused, not guessed at")
    func unknownSchemaRefused() throws {
        let path = try scratch.schema0Ledger()
        try rawSQL(path, "PRAGMA user_version = 1")
        let before = try bytes(path)
        #expect(openingFails(path, .unknownSchema)?.message.contains("schema 1") == true)
        #expect(try bytes(path) == before)
    }

    @Test("a SQLite file that is not a ledger, or a file that is not SQLite, is refused and left as it was")
    func notALedger() throws {
        let path = scratch.path("app.sqlite")
        try rawSQL(
            path, "PRAGMA journal_mode=WAL; CREATE TABLE users(id INTEGER PRIMARY KEY); INSERT INTO users VALUES (1);")
        let before = try bytes(path)
        #expect(openingFails(path, .notALedger)?.message.contains("no claims table (it has users)") == true)
        #expect(try bytes(path) == before)

        let text = scratch.path("notes.sqlite")
        try String(repeating: "not a database; ", count: 64).write(toFile: text, atomically: true, encoding: .utf8)
        let notes = try bytes(text)
        #expect(openingFails(text, .sqlite)?.message == "cannot open ledger \(text): file is not a database (code 26)")
        #expect(try bytes(text) == notes)
    }

    /// Old files the migration cannot finish, and the reason SQLite gives half way.
    static let unfinishable: [(name: String, sql: String, reason: String)] = [
        // Every step runs, then the check of what schema 5 reads fails.
        (
            "claims without user_id",
            """
            CREATE TABLE claims(key TEXT PRIMARY KEY, order_id TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO claims VALUES ('1', 'o1', 0);
            """, "its claims table is not as schema 5 reads it: no such column: user_id"
        ),
        // runs is created and three columns are added before the fourth fails.
        (
            "claims that already have purchase_token",
            """
            CREATE TABLE claims(key TEXT PRIMARY KEY, order_id TEXT NOT NULL, user_id TEXT NOT NULL,
                                created_at INTEGER NOT NULL, purchase_token TEXT) WITHOUT ROWID;
            INSERT INTO claims VALUES ('1', 'o1', 'u1', 0, 'tok');
            CREATE TABLE reported(order_id TEXT NOT NULL, rule TEXT NOT NULL, PRIMARY KEY(order_id, rule)) WITHOUT ROWID;
            """, "duplicate column name: purchase_token"
        ),
    ]

    @Test(
        "a migration that fails half way leaves the file byte for byte as it was and says why",
        arguments: 0..<unfinishable.count)
    func failedMigration(_ index: Int) throws {
        let odd = LedgerSchemaTests.unfinishable[index]
        let path = scratch.path("odd.sqlite")
        try rawSQL(path, "PRAGMA journal_mode=WAL; " + odd.sql)
        let before = try bytes(path)
        let error = openingFails(path, .migrationFailed)
        #expect(
            error?.message.contains("cannot migrate ledger \(path) from schema 0 to 5: \(odd.reason)") == true,
            "\(odd.name): \(error?.message ?? "")")
        #expect(error?.message.hasSuffix("the file is unchanged") == true)
        #expect(try bytes(path) == before, "\(odd.name)")
        #expect(try rawUserVersion(path) == 0)
        // Still refused the next time, the same way: nothing was left half done.
        #expect(openingFails(path, .migrationFailed)?.message == error?.message)
        #expect(try bytes(path) == before)
    }

    @Test("an old ledger that cannot be written (a read-only copy) is not migrated, says why, and stays as it was")
    func readOnlyCopy() throws {
        let path = try scratch.schema0Ledger()
        guard let undo = makeUnwritable(path) else {
            try Test.cancel("cannot make a file unwritable here (root without chattr)")
        }
        defer { undo() }
        let before = try bytes(path)
        let error = openingFails(path, .migrationFailed)
        #expect(error?.message.contains("readonly") == true, "\(error?.message ?? "")")
        #expect(try bytes(path) == before)
    }

    @Test("a migration killed before it commits leaves the old ledger, and the next open migrates it")
    func killedMigration() throws {
        let path = try scratch.schema0Ledger()
        let before = try bytes(path)
        let crashed = scratch.path("crashed.sqlite")
        do {
            // The migration's own steps, cut off before COMMIT; the files as a kill leaves them.
            let db = try LedgerFile(path: path)
            try db.execute("BEGIN IMMEDIATE")
            try db.execute(LedgerSchema.version0 + LedgerSchema.migration0to2)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + suffix)
            }
        }
        #expect(try bytes(crashed) == before)
        #expect(try rawUserVersion(crashed) == 0)
        let ledger = try SQLiteLedger(path: crashed)
        #expect(try ledger.storedSchemaVersion() == 5)
        #expect(try ledger.claims(of: ["100000000000066"]).count == 1)
    }
}

/// Makes the file unwritable even for root (chmod, and chattr +i where root ignores modes);
/// returns how to undo it, or nil when it stays writable.
private func makeUnwritable(_ path: String) -> (() -> Void)? {
    chmod(path, 0o444)
    var undo: () -> Void = { chmod(path, 0o644) }
    if geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr"),
        run("/usr/bin/chattr", "+i", path)
    {
        undo = {
            _ = run("/usr/bin/chattr", "-i", path)
            chmod(path, 0o644)
        }
    }
    let fd = open(path, O_WRONLY)
    guard fd < 0 else {
        close(fd)
        undo()
        return nil
    }
    return undo
}

private func run(_ tool: String, _ arguments: String...) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}
