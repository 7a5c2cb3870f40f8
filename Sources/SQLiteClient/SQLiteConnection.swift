import CSQLite3

/// One SQLite connection; closed in `deinit`. Used from one thread at a time.
public final class SQLiteConnection {
    private(set) var handle: OpaquePointer?

    /// `readOnly`: SQLite itself refuses every write, and a missing file is not created.
    /// `creating` false: a missing file is not created either.
    public init(path: String, readOnly: Bool = false, creating: Bool = true) throws(SQLiteError) {
        var db: OpaquePointer?
        let mode =
            readOnly
            ? SQLITE_OPEN_READONLY : creating ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE
        let rc = sqlite3_open_v2(path, &db, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLiteError(message)
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite's last message on this connection, with its extended result code.
    public var lastError: String {
        guard let handle else { return "closed" }
        return "\(String(cString: sqlite3_errmsg(handle))) (code \(sqlite3_extended_errcode(handle)))"
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            // exec's message is usually errmsg again: say it once, with the code.
            let said = message.map { String(cString: $0) } ?? ""
            sqlite3_free(message)
            let text = lastError.hasPrefix(said) ? lastError : "\(said) [\(lastError)]"
            throw SQLiteError(text)
        }
    }

    /// Whether no transaction is open (SQLite's autocommit mode).
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The rowid the last INSERT on this connection gave.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw SQLiteError("\(lastError) in \(sql)")
        }
        return SQLiteStatement(stmt, connection: self)
    }
}
