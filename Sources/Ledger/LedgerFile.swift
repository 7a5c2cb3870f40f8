import SQLiteClient

/// The SQLite ledger's file, as the ledger uses it: one connection of the SQLite adapter
/// (`SQLiteClient`) whose failures come out as `LedgerError`s (`.sqlite`), with the
/// transactions and bulk lookups the ledger is made of.
final class LedgerFile {
    private let connection: SQLiteConnection

    /// `readOnly`: SQLite itself refuses every write, and a missing file is not created.
    /// `creating` false: a missing file is not created either.
    init(path: String, readOnly: Bool = false, creating: Bool = true) throws(LedgerError) {
        do {
            connection = try SQLiteConnection(path: path, readOnly: readOnly, creating: creating)
        } catch {
            throw LedgerError("cannot open ledger \(path): \(error)", code: .sqlite)
        }
    }

    var lastError: String { connection.lastError }

    /// See `SQLiteConnection.waitForLocks`.
    func waitForLocks(milliseconds: Int32) { connection.waitForLocks(milliseconds: milliseconds) }

    func execute(_ sql: String) throws(LedgerError) {
        try sqlite { () throws(SQLiteError) in try connection.execute(sql) }
    }

    func prepare(_ sql: String) throws(LedgerError) -> LedgerStatement {
        LedgerStatement(try sqlite { () throws(SQLiteError) in try connection.prepare(sql) })
    }

    /// One write transaction around `body`, taken at once (BEGIN IMMEDIATE) so no other
    /// writer slips in between our reads and writes; rolled back if anything in it fails, or
    /// when `keep` does not hold for what it returned (a refusal that changes nothing).
    func writing<T>(keep: (T) -> Bool = { _ in true }, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try transaction("BEGIN IMMEDIATE", keep: keep, body)
    }

    /// One read transaction around `body`: a bulk lookup sees one snapshot and takes the
    /// WAL read lock once, not once per key. Inside an open transaction, just `body`.
    func reading<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        guard connection.isAutocommit else { return try body() }
        return try transaction("BEGIN", keep: { _ in true }, body)
    }

    private func transaction<T>(_ begin: String, keep: (T) -> Bool, _ body: () throws(LedgerError) -> T)
        throws(LedgerError) -> T
    {
        try execute(begin)
        do throws(LedgerError) {
            let value = try body()
            try execute(keep(value) ? "COMMIT" : "ROLLBACK")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `stmt` (one `?`) run once per key inside one read transaction: the bulk lookup every
    /// `…(of:)` is. `row` reads the first row of a key; nil leaves the key out.
    func lookUp<T>(_ stmt: LedgerStatement, _ keys: [String], _ row: (LedgerStatement) -> T?) throws(LedgerError)
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
    var lastInsertRowID: Int64 { connection.lastInsertRowID }

    /// The rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { connection.changes }

    /// `PRAGMA user_version`: the schema version this file says it has.
    func userVersion() throws(LedgerError) -> Int64 {
        let stmt = try prepare("PRAGMA user_version")
        guard try stmt.step() else { throw LedgerError("ledger: PRAGMA user_version gave no row") }
        return stmt.int(0)
    }
}

/// A prepared statement of the ledger's file; its failures are `LedgerError`s.
final class LedgerStatement {
    private let statement: SQLiteStatement

    init(_ statement: SQLiteStatement) {
        self.statement = statement
    }

    func bind(_ index: Int32, _ text: String?) { statement.bind(index, text) }
    func bind(_ index: Int32, _ value: Int64?) { statement.bind(index, value) }
    /// Binds `values` to ?1, ?2, …
    func bind(_ values: [SQLiteValue]) { statement.bind(values) }

    /// Steps once: true while a row is available.
    func step() throws(LedgerError) -> Bool {
        try sqlite { () throws(SQLiteError) in try statement.step() }
    }

    func reset() { statement.reset() }
    func text(_ column: Int32) -> String? { statement.text(column) }
    func int(_ column: Int32) -> Int64 { statement.int(column) }
    /// nil for NULL (`int` would say 0).
    func optionalInt(_ column: Int32) -> Int64? { statement.optionalInt(column) }
    var columnCount: Int32 { statement.columnCount }

    /// Runs a statement that returns no rows.
    func run() throws(LedgerError) {
        defer { reset() }
        _ = try step()
    }

    /// Binds `values` to ?1, ?2, … and runs the statement.
    func run(_ values: SQLiteValue...) throws(LedgerError) {
        statement.bind(values)
        try run()
    }
}

/// What SQLite said, as the ledger's error.
private func sqlite<T>(_ body: () throws(SQLiteError) -> T) throws(LedgerError) -> T {
    do { return try body() } catch { throw LedgerError("ledger: \(error)", code: .sqlite) }
}
