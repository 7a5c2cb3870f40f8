import Foundation
import IAPBasics
import PostgresTestSupport
import Testing

@testable import Ledger

/// `iapscreen ledger status` and `ledger copy` (docs/ledger.md), run as cron and people run them.
@Suite("ledger status and ledger copy")
struct LedgerCommandTests {
    /// `ledger status` of `ledger`, run in the world's directory.
    func status(_ w: ThreeNights, _ ledger: String) throws -> ToolRun {
        try Tool.run(["ledger", "status", "--ledger", ledger], in: w.scratch.path)
    }

    @Test(
        "status prints the backend, schema, what completed runs left and the last runs; it takes no lock, so it works while a run holds the ledger"
    )
    func statusOfSQLite() throws {
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1").run.status == 0)
        #expect(try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2").run.status == 0)
        #expect(
            try Tool.run(
                ["review", "--order", "A", "--verdict", "fraud", "--ledger", "sqlite:ledger.sqlite"],
                in: w.scratch.path
            ).status == 0)
        let s = try status(w, "sqlite:ledger.sqlite")
        #expect(s.status == 0, "\(s.stderr)")
        let lines = s.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(15)) == [
                "backend: sqlite", "ledger: sqlite:ledger.sqlite", "schema: 5", "claims: 5", "findings reported: 5",
                "reviews: 1", "store events: 6", "refunds: 6 (0 reversed)", "users' consents: 0", "flagged orders: 4",
                "desk users: 0", "open claims: 0", "audit entries: 1", "completed runs: 2", "run in progress: none",
            ], "\(s.stdout)")
        #expect(lines.count == 18 && lines[15] == "last runs, newest first:")
        #expect(
            lines[16].hasPrefix("  run 2  started ") && lines[16].hasSuffix("  orders 1  flagged 4"), "\(lines[16])")
        #expect(
            lines[17].hasPrefix("  run 1  started ") && lines[17].hasSuffix("  orders 4  flagged 0"), "\(lines[17])")

        let held = try LedgerLock(ledgerPath: w.scratch.file("ledger.sqlite"))
        let during = try status(w, "sqlite:ledger.sqlite")
        #expect(during.status == 0, "\(during.stderr)")
        #expect(
            during.stdout.contains("run in progress: held by process \(getpid()) (lock ledger.sqlite.lock)"),
            "\(during.stdout)")
        _ = held
    }

    @Test("status of a ledger written before schema versions reads it as it is, and leaves it so")
    func statusOfOldLedger() throws {
        let w = try ThreeNights()
        let before = try w.oldLedger("old.sqlite")
        let s = try status(w, "sqlite:old.sqlite")
        #expect(s.status == 0, "\(s.stderr)")
        #expect(
            s.stdout.contains(
                "schema: 0 (written before schema versions; the next screen or review migrates it to 5)\n"
                    + "claims: 191\nfindings reported: 25\nreviews: 2\nstore events: 0\nrefunds: 0 (0 reversed)\n"
                    + "users' consents: 0\nflagged orders: 0\ndesk users: 0\nopen claims: 0\naudit entries: 0\n"
                    + "completed runs: 1\n"
            ),
            "\(s.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.scratch.file("old.sqlite"))) == before)
    }

    @Test(
        "status says when it cannot: no ledger there or none named is exit 2, a newer schema exit 2, an unreadable file exit 3"
    )
    func statusRefusals() throws {
        let w = try ThreeNights()
        let missing = try status(w, "sqlite:nope.sqlite")
        #expect(
            missing.status == 2 && missing.stderr.contains("there is no ledger at nope.sqlite: no run has written it"))
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("nope.sqlite")))
        #expect(try status(w, "none").status == 2)
        #expect(try Tool.run(["ledger", "status", "--to", "sqlite:x"]).status == 2)
        #expect(try Tool.run(["ledger", "copy", "--ledger", "sqlite:x"]).status == 2)
        try w.scratch.write(
            "junk.sqlite", "not a database, but long enough for SQLite to look at it and say so......\n")
        let junk = try status(w, "sqlite:junk.sqlite")
        #expect(junk.status == 3 && junk.stderr.contains("cannot read the ledger"), "\(junk.stderr)")
        #expect(try w.screen("night1.jsonl", out: "out1").run.status == 0)
        try LedgerFile(path: w.scratch.file("ledger.sqlite")).execute("PRAGMA user_version = 9")
        let newer = try status(w, "sqlite:ledger.sqlite")
        #expect(newer.status == 2 && newer.stderr.contains("schema 9, this one reads up to 5"), "\(newer.stderr)")
        let closed = try status(w, "postgres://night:pa55@127.0.0.1:1/db")
        #expect(closed.status == 3 && closed.stderr.contains("Connection refused") && !closed.stderr.contains("pa55"))
    }

    @Test(
        "a PostgreSQL ledger's status names the server without a password and who holds the ledger, with no lock of its own"
    )
    func statusOfPostgres() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        let holder = try w.nightOneThenHeld(database.uri)
        let s = try status(w, database.uri)
        #expect(s.status == 0, "\(s.stderr)")
        #expect(s.stdout.hasPrefix("backend: postgresql\nledger: postgres://postgres@127.0.0.1:"), "\(s.stdout)")
        #expect(s.stdout.contains("/\(database.name) (schema iapscreen)\nschema: 5\nclaims: 4\n"), "\(s.stdout)")
        #expect(s.stdout.contains("run in progress: held by iapscreen \(getpid())@"), "\(s.stdout)")
        #expect(try holder.counts().runs == 1)
    }

    @Test(
        "copy sqlite to postgres to sqlite: the same status counts at every step, the desk's work kept, and the same findings on the next night"
    )
    func roundTrip() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1").run.status == 0)
        #expect(try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2").run.status == 0)
        // The desk's work: a user, a claim still live, a note, and their audit entries.
        let desk = try SQLiteDeskStore(path: w.scratch.file("ledger.sqlite"))
        let now = SystemClock.now().millis
        let ana = DeskUser(
            name: "ana", role: .reviewer, passwordHash: "$argon2id$x", passwordSetAt: now, createdAt: now)
        #expect(try desk.addUser(ana, by: "root"))
        let claimed = try #require(try desk.claimNext(by: "ana", until: now + 3_600_000, now: now))
        #expect(try desk.addNote(claimed.orderID, by: "ana", text: "looks replayed", at: now) == 2)
        let there = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:ledger.sqlite", "--to", database.uri], in: w.scratch.path)
        #expect(there.status == 0, "\(there.stderr)")
        #expect(
            there.stderr.contains(
                "copied 5 claims, 5 findings reported, 2 runs, 6 store events, 6 refunds, 4 flagged orders, "
                    + "1 block of findings, 1 transaction of a flagged order, 1 desk user, "
                    + "1 order on the desk, "
                    + "1 open claim, 1 note, 3 audit entries from sqlite:ledger.sqlite to postgres://"
            ), "\(there.stderr)")
        let back = try Tool.run(
            ["ledger", "copy", "--from", database.uri, "--to", "sqlite:back.sqlite"], in: w.scratch.path)
        #expect(back.status == 0, "\(back.stderr)")
        // Past the backend and ledger lines, the three say the same (runs, their ids and times included).
        let said = try ["sqlite:ledger.sqlite", database.uri, "sqlite:back.sqlite"].map { ledger in
            try status(w, ledger).stdout.split(separator: "\n").dropFirst(2).joined(separator: "\n")
        }
        #expect(said[0] == said[1] && said[1] == said[2], "\(said)")
        #expect(said[0].contains("claims: 5\n"))
        #expect(said[0].contains("flagged orders: 4\ndesk users: 1\nopen claims: 1\naudit entries: 3\n"), "\(said[0])")
        let trail = try desk.audit(since: nil, afterID: 0, limit: 10)
        #expect(
            try SQLiteDeskStore(path: w.scratch.file("back.sqlite")).audit(since: nil, afterID: 0, limit: 10) == trail)
        #expect(
            try PostgresDeskStore(uri: database.uri).dossier(of: claimed.orderID, now: now)?.order.claimedBy == "ana")
        // Night three on each: its reversal finds night two's refund in each, and its rerun says seen.
        for (name, ledger) in [
            ("original", "sqlite:ledger.sqlite"), ("postgres", database.uri), ("back", "sqlite:back.sqlite"),
        ] {
            #expect(
                try w.screen("night3.jsonl", events: "events3.jsonl", out: "\(name)3", ledger: ledger).run.status == 0)
        }
        for name in ["postgres", "back"] {
            for file in ["findings.jsonl", "flagged.csv"] {
                #expect(
                    try w.scratch.read("original3/\(file)") == w.scratch.read("\(name)3/\(file)"), "\(name) \(file)")
            }
        }
        #expect(
            try FindingLine.read(w.scratch.file("back3/findings.jsonl")).map(\.rule) == ["revoked", "refund-reversed"])
    }

    @Test(
        "copy refuses a target that holds anything (exit 2, saying what), one another run holds (exit 4), and a source that is not there; a file it made is removed again"
    )
    func copyRefusals() throws {
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1").run.status == 0)
        #expect(try w.screen("night1.jsonl", out: "out1b", ledger: "sqlite:other.sqlite").run.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: w.scratch.file("other.sqlite")))
        let full = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:ledger.sqlite", "--to", "sqlite:other.sqlite"], in: w.scratch.path)
        #expect(full.status == 2, "\(full.stderr)")
        #expect(
            full.stderr.contains("ledger other.sqlite is not empty: it holds 4 claims, 1 run; nothing copied"),
            "\(full.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.scratch.file("other.sqlite"))) == before)

        let held = try LedgerLock(ledgerPath: w.scratch.file("busy.sqlite"))
        let busy = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:ledger.sqlite", "--to", "sqlite:busy.sqlite"], in: w.scratch.path)
        #expect(busy.status == 4 && busy.stderr.contains("process \(getpid())"), "\(busy.stderr)")
        _ = held

        let none = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:nope.sqlite", "--to", "sqlite:new.sqlite"], in: w.scratch.path)
        #expect(none.status == 2 && none.stderr.contains("there is no ledger at nope.sqlite"), "\(none.stderr)")
        let unreachable = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:ledger.sqlite", "--to", "postgres://n:pa55@127.0.0.1:1/x"],
            in: w.scratch.path)
        #expect(unreachable.status == 3 && !unreachable.stderr.contains("pa55"), "\(unreachable.stderr)")
        #expect(try Tool.run(["ledger", "copy", "--from", "sqlite:ledger.sqlite"]).status == 2)

        // A copy that fails on a row it cannot read leaves no file behind.
        try LedgerFile(path: w.scratch.file("ledger.sqlite")).execute(
            "UPDATE claims SET created_at = 9223372036854775807 WHERE key = '1001'")
        let bad = try Tool.run(
            ["ledger", "copy", "--from", "sqlite:ledger.sqlite", "--to", "sqlite:made.sqlite"], in: w.scratch.path)
        #expect(
            bad.status == 3 && bad.stderr.contains("a row of claims (A) holds a value this iapscreen cannot read"),
            "\(bad.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: w.scratch.path).filter { $0.hasPrefix("made.sqlite") }
                .isEmpty)
    }
}
