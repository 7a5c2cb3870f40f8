import Foundation
import Ledger
import PostgresClient
import PostgresTestSupport
import Testing

/// `--ledger postgres://…` end to end (docs/ledger.md): the built binary against the test
/// server, each test in a database of its own.
@Suite("A PostgreSQL ledger, end to end")
struct PostgresLedgerScreenTests {
    @Test(
        "three nights of refunds, reversals and reruns on a PostgreSQL ledger write byte for byte the findings.jsonl and flagged.csv a SQLite ledger does"
    )
    func storeEventNightsAsOnSQLite() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        let nights: [(orders: String, events: String?)] = [
            ("night1.jsonl", nil), ("night2.jsonl", "events2.jsonl"), ("night2.jsonl", "events2.jsonl"),
            ("night3.jsonl", "events3.jsonl"), ("night3.jsonl", "events3.jsonl"), ("night2.jsonl", "events2.jsonl"),
        ]
        for (k, n) in nights.enumerated() {
            let sqlite = try w.screen(n.orders, events: n.events, out: "sqlite\(k)")
            let postgres = try w.screen(n.orders, events: n.events, out: "postgres\(k)", ledger: database.uri)
            #expect(
                sqlite.run.status == 0 && postgres.run.status == 0,
                "night \(k): \(sqlite.run.stderr) \(postgres.run.stderr)")
            try expectSameReports(w.scratch, "sqlite\(k)", "postgres\(k)")
            #expect(k == 0 || !postgres.findings.isEmpty, "night \(k) finds something to compare")
        }
    }

    @Test("the sample world on two nights and a later replay of a night-one receipt: the same findings on both ledgers")
    func replayAcrossNightsAsOnSQLite() throws {
        let database = try TestDatabase()
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        for night in ["night1", "night2"] {
            for (name, ledger) in [("sqlite", "sqlite:" + s.file("ledger.sqlite")), ("postgres", database.uri)] {
                let r = try Tool.run(
                    world.screenArguments(out: s.file("\(name)-\(night)"), ledger: ledger, storeEvents: true))
                #expect(r.status == 0, "\(name) \(night): \(r.stderr)")
            }
            try expectSameReports(s, "sqlite-\(night)", "postgres-\(night)")
        }
        // Night three credits the receipt of a clean order of night one again, to a new order.
        let expected = try world.expectations()
        let stolen = try #require(
            try gunzipLines(world.receipts).dropFirst().first { line in
                expected[String(line.prefix { $0 != "," })]?.name == "clean"
            })
        let victim = String(stolen.prefix { $0 != "," })
        let item = try #require(
            try gunzipLines(world.path + "/orders-appstore.csv.gz").first { $0.hasPrefix(victim + ",") }
        )
        .split(separator: ",")[2]
        try s.write(
            "night3/orders.csv",
            "order_id,user_id,item_id,platform,created_at\nNEW-1,thief,\(item),ios,2024-03-09T10:00:00Z\n")
        try s.write("night3/receipts.csv", "order_id,receipt\nNEW-1,\(stolen.split(separator: ",")[1])\n")
        for (name, ledger) in [("sqlite", "sqlite:" + s.file("ledger.sqlite")), ("postgres", database.uri)] {
            let r = try Tool.run([
                "screen", "--rules", world.path + "/Rules", "--orders", s.file("night3/orders.csv"),
                "--receipts", s.file("night3/receipts.csv"), "--out", s.file("\(name)-night3"), "--ledger", ledger,
            ])
            #expect(r.status == 0, "\(name): \(r.stderr)")
        }
        try expectSameReports(s, "sqlite-night3", "postgres-night3")
        let replay = try FindingLine.read(s.file("postgres-night3/findings.jsonl")).first {
            $0.rule == "replayed-transaction"
        }
        #expect(replay?.object["evidence"]?.object?["original_order_id"]?.string == victim)
    }

    @Test(
        "a run while another process holds the ledger is exit 4 naming its pid and host; nothing written; explain still reads"
    )
    func heldLedger() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        let holder = try w.nightOneThenHeld(database.uri)
        let busy = try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2", ledger: database.uri)
        #expect(busy.run.status == 4, "\(busy.run.stderr)")
        #expect(busy.run.stderr.contains("is in use by another run: iapscreen \(getpid())@"), "\(busy.run.stderr)")
        #expect(busy.run.stderr.contains("server process ") && busy.run.stderr.contains("nothing written"))
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("out2")))
        let review = try Tool.run(["review", "--order", "A", "--verdict", "fraud", "--ledger", database.uri])
        #expect(review.status == 4 && review.stderr.contains("no verdict recorded"), "\(review.stderr)")
        // Reading takes no lock.
        let explained = try Tool.run(
            [
                "explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl",
                "--ledger", database.uri,
            ], in: w.scratch.path)
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(explained.stdout.contains("ledger: an earlier run recorded order A"), "\(explained.stdout)")
        #expect(try holder.recentRuns(10).count == 1 && holder.review(of: "A") == nil)
    }

    @Test(
        "a wrong password is exit 3 with libpq's words for screen, review and explain; the password is printed nowhere")
    func wrongPassword() throws {
        let database = try TestDatabase()
        let role = try database.role(password: "right-pw")
        let w = try ThreeNights()
        let secret = "Wr0ng-s3cret"
        let inURI = try TestServer.uri(database.uri, user: role, password: secret)
        let inEnvironment = try TestServer.uri(database.uri, user: role)
        let runs = [
            try Tool.run(
                ["screen", "--rules", "Rules", "--orders", "night1.jsonl", "--out", "out", "--ledger", inURI],
                in: w.scratch.path),
            try Tool.run(
                ["screen", "--rules", "Rules", "--orders", "night1.jsonl", "--out", "out", "--ledger", inEnvironment],
                in: w.scratch.path, environment: ["PGPASSWORD": secret]),
            try Tool.run(["review", "--order", "A", "--verdict", "fraud", "--ledger", inURI]),
            try Tool.run(
                ["explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl", "--ledger", inURI],
                in: w.scratch.path),
        ]
        for r in runs {
            #expect(r.status == 3, "\(r.stderr)")
            #expect(r.stderr.contains("password authentication failed for user \"\(role)\""), "\(r.stderr)")
            #expect(r.stderr.contains("postgres://\(role)@127.0.0.1:"), "\(r.stderr)")
            #expect(!r.stderr.contains(secret) && !r.stdout.contains(secret) && !r.stderr.contains("right-pw"))
        }
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("out/findings.jsonl")))
        #expect(
            try PostgresConnection(uri: database.uri).query("SELECT to_regnamespace('iapscreen') IS NULL").bool(0, 0)
                == true)
    }

    @Test(
        "a ledger of a newer schema is exit 2 naming both versions for screen, review and explain, and is left as it was"
    )
    func newerSchema() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1", ledger: database.uri).run.status == 0)
        try database.sql("UPDATE iapscreen.schema_version SET version = 6")
        let runs = [
            try w.screen("night2.jsonl", events: "events2.jsonl", out: "out2", ledger: database.uri).run,
            try Tool.run(["review", "--order", "A", "--verdict", "fraud", "--ledger", database.uri]),
            try Tool.run(
                ["explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl", "--ledger", database.uri],
                in: w.scratch.path),
        ]
        for r in runs {
            #expect(r.status == 2, "\(r.stderr)")
            #expect(
                r.stderr.contains("was written by a newer iapscreen: schema 6, this one reads up to 5"), "\(r.stderr)")
        }
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT version FROM iapscreen.schema_version").int64(0, 0) == 6)
        #expect(try db.query("SELECT count(*) FROM iapscreen.runs").int64(0, 0) == 1)
        #expect(try db.query("SELECT count(*) FROM iapscreen.reviews").int64(0, 0) == 0)
    }

    @Test("explain on a database no run has written says so and creates nothing; review there is exit 2")
    func noLedgerYet() throws {
        let database = try TestDatabase()
        let w = try ThreeNights()
        let explained = try Tool.run(
            [
                "explain", "--order", "A", "--rules", "Rules", "--orders", "night1.jsonl",
                "--ledger", database.uri,
            ], in: w.scratch.path)
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(explained.stdout.contains("ledger: no ledger yet in postgres://"), "\(explained.stdout)")
        let review = try Tool.run(["review", "--order", "A", "--verdict", "fraud", "--ledger", database.uri])
        #expect(review.status == 2 && review.stderr.contains("no run has written it"), "\(review.stderr)")
        #expect(
            try PostgresConnection(uri: database.uri).query("SELECT to_regnamespace('iapscreen') IS NULL").bool(0, 0)
                == true)
    }

    @Test("a URI libpq cannot read is a usage error that does not echo it; a server that cannot be reached is exit 3")
    func badAddresses() throws {
        let w = try ThreeNights()
        let unreadable = try w.screen(
            "night1.jsonl", out: "out", ledger: "postgres://night:pa55@127.0.0.1/db?sslmod=require"
        ).run
        #expect(
            unreadable.status == 2 && unreadable.stderr.contains("invalid URI query parameter: \"sslmod\""),
            "\(unreadable.stderr)")
        let typo = try w.screen("night1.jsonl", out: "out", ledger: "postgress://night:pa55@127.0.0.1/db").run
        #expect(typo.status == 2 && typo.stderr.contains("not a postgress://… URI"), "\(typo.stderr)")
        let closed = try w.screen("night1.jsonl", out: "out", ledger: "postgresql://night:pa55@127.0.0.1:1/db").run
        #expect(closed.status == 3 && closed.stderr.contains("Connection refused"), "\(closed.stderr)")
        for r in [unreadable, typo, closed] { #expect(!r.stderr.contains("pa55")) }
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("out/findings.jsonl")))
    }

    @Test(
        "the server stopped mid-run: exit 3 with libpq's words, no reports, and once it is back the ledger as it was; a rerun completes"
    )
    func serverStoppedMidRun() throws {
        try TestServer.requireClusterPrograms(skipped: "this test, which stops a cluster of its own, is skipped")
        let cluster = try OwnCluster()
        defer { cluster.stop() }
        let ledger = try cluster.start()
        let w = try ThreeNights()
        #expect(try w.screen("night1.jsonl", out: "out1", ledger: ledger).run.status == 0)
        // The test clusters commit without waiting for the WAL (synchronous_commit off): night
        // one is put on disk before its server is killed, as a real server's commit is.
        try PostgresConnection(uri: ledger).execute("CHECKPOINT")
        let before = try LedgerRows.count(ledger)
        // A night long enough (a few seconds, debug build) that the server can be stopped while it runs.
        var rows = "order_id,user_id,item_id,platform,created_at\n"
        for i in 0..<30_000 {
            rows += "B-\(i),u\(i % 500),gems,ios,2024-03-05T10:\(String(format: "%02d", i % 60)):00Z\n"
        }
        try w.scratch.write("night2.csv", rows)

        let arguments = [
            "screen", "--rules", "Rules", "--orders", "night2.csv", "--out", "out2", "--ledger", ledger, "--quiet",
        ]
        let directory = w.scratch.path
        let run = AsyncRun { try Tool.run(arguments, in: directory) }
        // Stopped as soon as the run holds the ledger's lock: it is reading the night then. However
        // long that takes to come: the cap only keeps a run that hangs from hanging the test.
        let poll = try PostgresConnection(uri: ledger)
        let cap = Date().addingTimeInterval(TestServer.hangCap)
        while try poll.query(LedgerRows.runLockHeld).bool(0, 0) != true {
            guard !run.isDone, Date() < cap else { break }
            usleep(10_000)
        }
        try cluster.crash()
        let stopped = try run.wait()
        #expect(!run.finishedBeforeCrash, "the run ended before the server was stopped: make the night longer")
        #expect(stopped.status == 3, "\(stopped.stderr)")
        #expect(
            stopped.stderr.contains("ledger postgres://postgres@127.0.0.1:")
                && stopped.stderr.contains("nothing written, ledger unchanged"),
            "\(stopped.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.scratch.file("out2")).isEmpty)

        _ = try cluster.start()
        #expect(try LedgerRows.count(ledger) == before, "no claim, finding or run of the stopped night")
        let rerun = try w.screen("night2.csv", out: "out2", ledger: ledger)
        #expect(rerun.run.status == 0, "\(rerun.run.stderr)")
        let after = try LedgerRows.count(ledger)
        #expect(after.runs == before.runs + 1 && after.reported == before.reported + 30_000)
    }
}

extension ThreeNights {
    /// Night one screened on the PostgreSQL ledger at `uri`, then held by a session of this
    /// process as a run holds it (until the ledger returned is released).
    func nightOneThenHeld(_ uri: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> PostgresLedger {
        let one = try screen("night1.jsonl", out: "out1", ledger: uri).run
        #expect(one.status == 0, "\(one.stderr)", sourceLocation: sourceLocation)
        let holder = try PostgresLedger(uri: uri)
        try holder.lockForRun()
        return holder
    }
}

/// findings.jsonl and flagged.csv of two runs, byte for byte.
private func expectSameReports(
    _ s: Scratch, _ a: String, _ b: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for file in ["findings.jsonl", "flagged.csv"] {
        let left = try Data(contentsOf: URL(fileURLWithPath: s.file(a + "/" + file)))
        let right = try Data(contentsOf: URL(fileURLWithPath: s.file(b + "/" + file)))
        #expect(left == right, "\(a)/\(file) and \(b)/\(file) differ", sourceLocation: sourceLocation)
    }
}
