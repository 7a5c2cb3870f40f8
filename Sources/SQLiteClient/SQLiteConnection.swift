import CSQLite3

/// One SQLite connection; closed in `deinit`. Used from one thread at a time.
public final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    /// The path the connection was opened with, for the messages that name it.
    private let path: String
    /// The file as it was when opened without SQLite's locks (`ReadOnlyOpening`); nil otherwise.
    private let unlockedSince: FileStamp?

    /// `readOnly`: SQLite itself refuses every write, a missing file is not created, and
    /// neither is any file beside it (`ReadOnlyOpening`).
    /// `creating` false: a missing file is not created either.
    public init(path: String, readOnly: Bool = false, creating: Bool = true) throws(SQLiteError) {
        _ = SQLiteConnection.configured
        var db: OpaquePointer?
        let opening = readOnly ? ReadOnlyOpening(path) : nil
        let mode =
            opening?.flags ?? (creating ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE)
        let rc = sqlite3_open_v2(opening?.filename ?? path, &db, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLiteError(message)
        }
        handle = db
        self.path = path
        unlockedSince = opening?.stamp
        sqlite3_busy_timeout(db, 5_000)
    }

    /// Throws when a file opened without SQLite's locks changed since: what was read of it may
    /// mix pages from before and after a writer's checkpoint. Checked where a read transaction
    /// ends, or after each step outside one; inside one, its end checks every read.
    func confirmUnchanged() throws(SQLiteError) {
        guard let unlockedSince, isAutocommit, !unlockedSince.isCurrent else { return }
        throw SQLiteError(
            "\(path) changed while it was read (another process wrote it): what was read is not used; read it again")
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite set up before its first connection (`sqlite3_config` is refused after):
    /// without the memory statistics no connection reads. Swift runs a static's initialiser once.
    private static let configured: Int32 = iapscreen_sqlite3_skip_memory_statistics()

    /// How long a statement waits for another connection's write lock before SQLite says
    /// "database is locked" (5 s unless set).
    public func waitForLocks(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// SQLite's last message on this connection, with its extended result code.
    public var lastError: String {
        guard let handle else { return "closed" }
        return "\(String(cString: sqlite3_errmsg(handle))) (code \(sqlite3_extended_errcode(handle)))"
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        let said = message.map { String(cString: $0) } ?? ""
        sqlite3_free(message)
        try confirmUnchanged()
        guard rc == SQLITE_OK else {
            // exec's message is usually errmsg again: say it once, with the code.
            let text = lastError.hasPrefix(said) ? lastError : "\(said) [\(lastError)]"
            throw SQLiteError(text)
        }
    }

    /// Whether no transaction is open (SQLite's autocommit mode).
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The rowid the last INSERT on this connection gave.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The rows the last INSERT, UPDATE or DELETE on this connection changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            // The schema it read may be a changed file's.
            try confirmUnchanged()
            throw SQLiteError("\(lastError) in \(sql)")
        }
        return SQLiteStatement(stmt, connection: self)
    }
}
