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

    /// A WAL file whose writer wrote `rows` and closed, under a name with URI characters in a
    /// directory of its own: the file's path. Its time is set back a day, so a later write shows.
    private func closedWALFile(rows: Int) throws -> String {
        let dir = scratch()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let path = dir + "/a b?c#d%e.sqlite"
        do {
            let writer = try SQLiteConnection(path: path)
            try writer.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (x)")
            for i in 0..<rows { try writer.execute("INSERT INTO t VALUES (\(i))") }
        }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: path)
        return path
    }

    private func count(_ db: SQLiteConnection) throws -> Int64 {
        let stmt = try db.prepare("SELECT count(*) FROM t")
        #expect(try stmt.step())
        return stmt.int(0)
    }

    @Test("read-only: a WAL file whose writer closed is read without creating a -wal, -shm or any file beside it")
    func readOnlyCreatesNothing() throws {
        let path = try closedWALFile(rows: 2)
        let dir = (path as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let reader = try SQLiteConnection(path: path, readOnly: true)
            #expect(try count(reader) == 2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a b?c#d%e.sqlite"])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a b?c#d%e.sqlite"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test("read-only: a writer that changes the file while it is read fails the next read, naming the file")
    func readOnlySeesAChange() throws {
        let path = try closedWALFile(rows: 1)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        let select = try reader.prepare("SELECT count(*) FROM t")
        try reader.execute("BEGIN")
        #expect(try select.step() && select.int(0) == 1)
        select.reset()
        // Another process's run: it writes and closes, which checkpoints into the file.
        do { try SQLiteConnection(path: path).execute("INSERT INTO t VALUES (2)") }
        let ending = try #require(throws: SQLiteError.self) { try reader.execute("COMMIT") }
        #expect(ending.message.hasPrefix("\(path) changed while it was read"), "\(ending)")
        let next = try #require(throws: SQLiteError.self) { try select.step() }
        #expect(next.message.hasPrefix("\(path) changed while it was read"), "\(next)")
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
