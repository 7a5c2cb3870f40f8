import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// The test server (TestServer: the one IAPSCREEN_TEST_POSTGRES names, else the tests' own
/// throwaway cluster), or: without the server programs, off CI the test is skipped saying so;
/// on CI it fails.
private func server() throws -> String { try TestServer.required() }

@Suite("libpq adapter: parameters, results, COPY, transactions, advisory locks, errors")
struct PostgresClientTests {
    @Test("parameters go out with their types and come back as typed cells; NULL is nil")
    func parametersAndCells() throws {
        let db = try PostgresConnection(uri: server())
        let r = try db.query(
            "SELECT $1::text, $2::bigint, $3::text[], cardinality($4::text[]), $5::text, true",
            [
                .text("a-b"), .int64(-42), .textArray(["x", "y,\"z\""]),
                .textArray([]), .null,
            ])
        #expect(r.rowCount == 1 && r.columnCount == 6)
        #expect(try r.text(0, 0) == "a-b")
        #expect(try r.int64(0, 1) == -42)
        #expect(try r.text(0, 2) == "{x,\"y,\\\"z\\\"\"}")
        #expect(try r.int64(0, 3) == 0)
        #expect(try r.text(0, 4) == nil)
        #expect(try r.bool(0, 5) == true)
        // Text goes with its length: a NUL is refused by the server, not cut short on the way.
        #expect {
            try db.query("SELECT $1::text", [.text("a\0b")])
        } throws: { error in
            (error as? PostgresError)?.message.contains("invalid byte sequence for encoding \"UTF8\": 0x00") == true
        }
    }

    @Test("a cell that is not of the asked type, or not there, throws instead of trapping")
    func badCells() throws {
        let r = try PostgresConnection(uri: server()).query("SELECT 'twelve', 'maybe'")
        #expect(throws: PostgresError.self) { try r.int64(0, 0) }
        #expect(throws: PostgresError.self) { try r.bool(0, 1) }
        #expect(throws: PostgresError.self) { try r.text(1, 0) }
        #expect(throws: PostgresError.self) { try r.text(0, -1) }
    }

    @Test("a statement prepared once runs with each set of parameters; a wrong count or kind is refused here")
    func prepared() throws {
        let db = try PostgresConnection(uri: server())
        let s = try db.prepare("SELECT $1 || '!', $2 + 1", [.text, .int64])
        #expect(try s.run([.text("hi"), .int64(1)]).text(0, 0) == "hi!")
        #expect(try s.run([.text("yo"), .int64(41)]).int64(0, 1) == 42)
        #expect(throws: PostgresError.self) { try s.run([.text("hi")]) }
        #expect(throws: PostgresError.self) { try s.run([.int64(1), .int64(1)]) }
    }

    @Test("COPY writes many rows, odd text intact; a row the server refuses fails the whole COPY with its message")
    func copy() throws {
        let db = try PostgresConnection(uri: server())
        try db.execute("CREATE TEMP TABLE t(n bigint, s text)")
        let odd = ["tab\there", "new\nline", "back\\slash \\N", "cr\r", "ü 漢 🙂"]
        let count = 30_000
        let taken = try db.copyIn("COPY t FROM STDIN", count: count) { rows, i in
            rows.add(Int64(i))
            rows.add(i % 7 == 6 ? nil : odd[i % odd.count])
            rows.endRow()
        }
        #expect(taken == count)
        let back = try db.query("SELECT s FROM t WHERE n < 7 ORDER BY n")
        #expect(
            try (0..<back.rowCount).map { i throws(PostgresError) in try back.text(i, 0) }
                == odd + [odd[0], nil])
        #expect {
            try db.copyIn("COPY t FROM STDIN", count: 2) { rows, i in
                rows.add(i == 0 ? "1" : "not a number")
                rows.add("x")
                rows.endRow()
            }
        } throws: { error in
            (error as? PostgresError)?.message.contains("invalid input syntax for type bigint") == true
        }
        // The connection is usable after a failed COPY.
        #expect(try db.query("SELECT count(*) FROM t").int64(0, 0) == Int64(count))
    }

    @Test("a failed statement says the server's message and SQLSTATE; a transaction rolls back")
    func errorsAndTransactions() throws {
        let db = try PostgresConnection(uri: server())
        do {
            try db.execute("SELECT * FROM no_such_table")
            Issue.record("no error")
        } catch {
            #expect(error.sqlState == "42P01")
            #expect(error.message.contains("relation \"no_such_table\" does not exist"))
        }
        try db.execute("CREATE TEMP TABLE u(x int)")
        try db.execute("BEGIN")
        #expect(db.inTransaction)
        try db.execute("INSERT INTO u VALUES (1)")
        try db.execute("ROLLBACK")
        #expect(!db.inTransaction)
        #expect(try db.query("SELECT count(*) FROM u").int64(0, 0) == 0)
    }

    @Test("a session advisory lock is held by one session at a time, until released or the session ends")
    func advisoryLock() throws {
        let uri = try server()
        let key = Int64.random(in: 1...Int64.max)
        var first: PostgresConnection? = try PostgresConnection(uri: uri)
        let second = try PostgresConnection(uri: uri)
        #expect(try first?.tryAdvisoryLock(key) == true)
        #expect(try !second.tryAdvisoryLock(key))
        #expect(try first?.advisoryUnlock(key) == true)
        #expect(try second.tryAdvisoryLock(key))
        #expect(try second.advisoryUnlock(key))
        #expect(try first?.tryAdvisoryLock(key) == true)
        first = nil
        // The server frees it when the session goes; it may take a while to notice.
        #expect(try TestServer.eventually { try second.tryAdvisoryLock(key) })
    }

    @Test("where a connection goes is described without its password, also when the URI is unreadable")
    func noPasswordInMessages() throws {
        let target = PostgresTarget(uri: "postgres://ana:s3cr%45t@db.example:6543/ledger?sslmode=require")
        #expect(target.description == "postgres://ana@db.example:6543/ledger")
        for uri in [
            "postgres://ana:%zzs3cret@127.0.0.1:1/x", "postgres://ana@127.0.0.1:1/x?password=%zzs3cret",
            "host=127.0.0.1 port=1 password=s3cret dbname=x connect_timeout=oops",
        ] {
            do {
                _ = try PostgresConnection(uri: uri)
                Issue.record("connected to \(uri)")
            } catch {
                #expect(!error.message.contains("s3cret"), "\(error.message)")
                #expect(error.message.hasPrefix("cannot connect to postgres://"), "\(error.message)")
            }
        }
    }
}
