import SQLiteClient

/// The desk's side of a SQLite ledger (`LedgerSchema` 4): `LedgerDeskStore` over a connection
/// of its own. Its writes wait for a run's write transaction to end rather than fail: a desk
/// working while `screen` records its night loses nothing (CONTRACT §14).
public final class SQLiteDeskStore: LedgerDeskStore {
    public let path: String

    /// Long enough for the biggest night's record transaction; a reviewer's click waits for it.
    static let waitForRunMilliseconds: Int32 = 600_000

    /// Opens the ledger at `path`, which must exist at the current schema (the desk opens it
    /// once as a `SQLiteLedger` first, which creates or migrates it).
    public init(path: String) throws(LedgerError) {
        self.path = path
        let db = try LedgerFile(path: path, creating: false)
        // Pages read through a map of the file, not copied by pread: every write of another
        // desk thread (a claim, a session's use) empties this connection's page cache, and
        // reading the queue's index back through pread took two fifths of the desk's CPU.
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA mmap_size=1073741824;")
        db.waitForLocks(milliseconds: SQLiteDeskStore.waitForRunMilliseconds)
        let version = try db.userVersion()
        guard version == LedgerSchema.current else {
            throw LedgerError(
                "ledger \(path) is at schema \(version), not \(LedgerSchema.current): open it with this iapscreen first",
                code: .unknownSchema)
        }
        super.init(database: SQLiteDeskDatabase(db))
    }
}

/// A SQLite ledger's file as the desk's logic uses it; each statement prepared once a connection.
final class SQLiteDeskDatabase: DeskDatabase {
    let dialect = SQLDialect.sqlite
    private let db: LedgerFile
    private var statements: [String: LedgerStatement] = [:]

    init(_ db: LedgerFile) {
        self.db = db
    }

    /// The statement of `sql` with `values` bound, prepared on first use.
    private func statement(_ sql: String, _ values: [DeskValue]) throws(LedgerError) -> LedgerStatement {
        let s: LedgerStatement
        if let prepared = statements[sql] {
            s = prepared
            s.reset()
        } else {
            s = try db.prepare(sql)
            statements[sql] = s
        }
        s.bind(values.map(SQLiteValue.init))
        return s
    }

    func rows<T>(_ sql: String, _ values: [DeskValue], _ row: (DeskRow) -> T?) throws(LedgerError) -> [T] {
        let s = try statement(sql, values)
        defer { s.reset() }
        var out: [T] = []
        while try s.step() {
            if let r = row(DeskRow(s)) { out.append(r) }
        }
        return out
    }

    func run(_ sql: String, _ values: [DeskValue]) throws(LedgerError) -> Int {
        try statement(sql, values).run()
        return db.changes
    }

    func reading<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T { try db.reading(body) }

    func writing<T>(keep: (T) -> Bool, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try db.writing(keep: keep, body)
    }
}

extension SQLiteValue {
    /// A desk value as SQLite keeps it: a boolean as 1 or 0.
    init(_ value: DeskValue) {
        switch value {
        case .text(let t): self = .text(t)
        case .int(let i): self = .int(i)
        case .bool(let b): self = .int(b ? 1 : 0)
        }
    }
}

extension DeskRow {
    /// The row a SQLite statement stands on.
    init(_ s: LedgerStatement) {
        cells = (0..<s.columnCount).map { s.text($0) }
    }
}
