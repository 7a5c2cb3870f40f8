import CSQLite3

/// A prepared statement; finalized in `deinit`.
public final class SQLiteStatement {
    private let stmt: OpaquePointer
    /// Kept open while the statement lives; it also says what failed.
    private let connection: SQLiteConnection
    /// SQLITE_TRANSIENT: SQLite copies bound text (a macro Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ stmt: OpaquePointer, connection: SQLiteConnection) {
        self.stmt = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(stmt) }

    public func bind(_ index: Int32, _ text: String?) {
        if let text {
            sqlite3_bind_text(stmt, index, text, -1, SQLiteStatement.transient)
        } else {
            sqlite3_bind_null(stmt, index)
        }
    }

    public func bind(_ index: Int32, _ value: Int64?) {
        if let value {
            sqlite3_bind_int64(stmt, index, value)
        } else {
            sqlite3_bind_null(stmt, index)
        }
    }

    /// Binds `values` to ?1, ?2, …
    public func bind(_ values: [SQLiteValue]) {
        for (i, value) in zip(Int32(1)..., values) {
            switch value {
            case .text(let text): bind(i, text)
            case .int(let int): bind(i, int)
            }
        }
    }

    /// Steps once: true while a row is available.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        try connection.confirmUnchanged()
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(connection.lastError)
        }
    }

    public func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    public func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(stmt, column) else { return nil }
        return String(cString: p)
    }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }

    /// How many columns a row of it has.
    public var columnCount: Int32 { sqlite3_column_count(stmt) }

    /// nil for NULL (`int` would say 0).
    public func optionalInt(_ column: Int32) -> Int64? {
        sqlite3_column_type(stmt, column) == SQLITE_NULL ? nil : sqlite3_column_int64(stmt, column)
    }
}

/// A value bound to a statement; nil is NULL.
public enum SQLiteValue: Sendable {
    case text(String?)
    case int(Int64?)
}
