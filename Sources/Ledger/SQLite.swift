import CSQLite3

/// One SQLite connection; closed in `deinit`. Used from one thread at a time.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?

    /// `readOnly`: SQLite itself refuses every write, and a missing file is not created.
    /// `creating` false: a missing file is not created either.
    init(path: String, readOnly: Bool = false, creating: Bool = true) throws(LedgerError) {
        var db: OpaquePointer?
        let mode =
            readOnly
            ? SQLITE_OPEN_READONLY : creating ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE
        let rc = sqlite3_open_v2(path, &db, mode | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw LedgerError("cannot open ledger \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    var lastError: String {
        guard let handle else { return "closed" }
        return "\(String(cString: sqlite3_errmsg(handle))) (code \(sqlite3_extended_errcode(handle)))"
    }

    func execute(_ sql: String) throws(LedgerError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            // exec's message is usually errmsg again: say it once, with the code.
            let said = message.map { String(cString: $0) } ?? ""
            sqlite3_free(message)
            let text = lastError.hasPrefix(said) ? lastError : "\(said) [\(lastError)]"
            throw LedgerError("ledger: \(text)")
        }
    }

    /// One write transaction around `body`, taken at once (BEGIN IMMEDIATE) so no other
    /// writer slips in between our reads and writes; rolled back if anything in it fails.
    func writing<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// One read transaction around `body`: a bulk lookup sees one snapshot and takes the
    /// WAL read lock once, not once per key. Inside an open transaction, just `body`.
    func reading<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        guard sqlite3_get_autocommit(handle) != 0 else { return try body() }
        return try transaction("BEGIN", body)
    }

    private func transaction<T>(_ begin: String, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try execute(begin)
        do throws(LedgerError) {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `stmt` (one `?`) run once per key inside one read transaction: the bulk lookup every
    /// `…(of:)` is. `row` reads the first row of a key; nil leaves the key out.
    func lookUp<T>(_ stmt: SQLiteStatement, _ keys: [String], _ row: (SQLiteStatement) -> T?) throws(LedgerError)
        -> [String: T]
    {
        try reading { () throws(LedgerError) in
            var out: [String: T] = [:]
            out.reserveCapacity(min(keys.count, 1 << 16))
            for key in keys {
                stmt.bind(1, key)
                defer { stmt.reset() }
                if try stmt.step(), let value = row(stmt) { out[key] = value }
            }
            return out
        }
    }

    /// The rowid the last INSERT on this connection gave.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// `PRAGMA user_version`: the schema version this file says it has.
    func userVersion() throws(LedgerError) -> Int64 {
        let stmt = try prepare("PRAGMA user_version")
        guard try stmt.step() else { throw LedgerError("ledger: PRAGMA user_version gave no row") }
        return stmt.int(0)
    }

    func prepare(_ sql: String) throws(LedgerError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw LedgerError("ledger: \(lastError) in \(sql)")
        }
        return SQLiteStatement(stmt, db: self)
    }
}

/// A prepared statement; finalized in `deinit`.
final class SQLiteStatement {
    private let stmt: OpaquePointer
    private let db: SQLiteDatabase
    /// SQLITE_TRANSIENT: SQLite copies bound text (a macro Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ stmt: OpaquePointer, db: SQLiteDatabase) {
        self.stmt = stmt
        self.db = db
    }

    deinit { sqlite3_finalize(stmt) }

    func bind(_ index: Int32, _ text: String?) {
        if let text {
            sqlite3_bind_text(stmt, index, text, -1, SQLiteStatement.transient)
        } else {
            sqlite3_bind_null(stmt, index)
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value {
            sqlite3_bind_int64(stmt, index, value)
        } else {
            sqlite3_bind_null(stmt, index)
        }
    }

    /// Steps once: true while a row is available.
    func step() throws(LedgerError) -> Bool {
        switch sqlite3_step(stmt) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw LedgerError("ledger: \(db.lastError)")
        }
    }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(stmt, column) else { return nil }
        return String(cString: p)
    }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }

    /// nil for NULL (`int` would say 0).
    func optionalInt(_ column: Int32) -> Int64? {
        sqlite3_column_type(stmt, column) == SQLITE_NULL ? nil : sqlite3_column_int64(stmt, column)
    }

    /// Runs a statement that returns no rows.
    func run() throws(LedgerError) {
        defer { reset() }
        _ = try step()
    }

    /// Binds `values` to ?1, ?2, … and runs the statement.
    func run(_ values: SQLiteValue...) throws(LedgerError) {
        for (i, value) in zip(Int32(1)..., values) {
            switch value {
            case .text(let text): bind(i, text)
            case .int(let int): bind(i, int)
            }
        }
        try run()
    }
}

/// A value bound to a statement; nil is NULL.
enum SQLiteValue {
    case text(String?)
    case int(Int64?)
}
