import Foundation
import SQLiteClient
import Testing

@Suite("SQLite adapter: a connection, statements and what SQLite says when it refuses")
struct SQLiteClientTests {
    private func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-client-\(UUID().uuidString).sqlite").path
    }

    @Test("a row written is read back, text, integers and NULL alike")
    func roundTrip() throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        try db.execute("CREATE TABLE t (name TEXT, n INTEGER, maybe INTEGER)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3)")
        insert.bind([.text("order-1"), .int(42), .int(nil)])
        #expect(try insert.step() == false)
        #expect(db.lastInsertRowID == 1)
        let select = try db.prepare("SELECT name, n, maybe FROM t")
        #expect(try select.step())
        #expect(select.text(0) == "order-1")
        #expect(select.int(1) == 42)
        #expect(select.optionalInt(2) == nil)
        #expect(try select.step() == false)
    }

    @Test("read-only: a missing file is not created, and a write is refused with SQLite's words and code")
    func readOnly() throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: SQLiteError.self) { try SQLiteConnection(path: path, readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try SQLiteConnection(path: path).execute("CREATE TABLE t (x)")
        let reader = try SQLiteConnection(path: path, readOnly: true)
        let error = try #require(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error.message.contains("readonly"), "\(error)")
        #expect(error.message.contains("(code 8"), "SQLITE_READONLY's extended code: \(error)")
    }

    @Test("a statement that cannot be prepared names itself; a transaction is seen from autocommit")
    func prepareAndTransactions() throws {
        let path = scratch()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try SQLiteConnection(path: path)
        let error = try #require(throws: SQLiteError.self) { try db.prepare("SELECT * FROM nowhere") }
        #expect(error.message.contains("no such table: nowhere"))
        #expect(error.message.hasSuffix("in SELECT * FROM nowhere"))
        #expect(db.isAutocommit)
        try db.execute("BEGIN")
        #expect(!db.isAutocommit)
        try db.execute("ROLLBACK")
        #expect(db.isAutocommit)
    }
}
