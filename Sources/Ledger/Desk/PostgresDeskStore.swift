import PostgresClient

/// The desk's side of a PostgreSQL ledger (`PostgresSchema` 4): `LedgerDeskStore` over a
/// connection of its own, its search path schema `iapscreen`. Two desks on one database are
/// one desk: each decision locks the order's row (`SQLDialect.lockingRead`). A run in
/// progress holds no row the desk writes: what the desk writes then waits for nothing.
public final class PostgresDeskStore: LedgerDeskStore {
    /// Where the ledger is, for messages: `postgres://user@host:port/db`.
    public let target: String

    /// Connects with a libpq URI; the ledger must be at the current schema (the desk opens it
    /// once as a `PostgresLedger` first, which creates or migrates it).
    public init(uri: String) throws(LedgerError) {
        let (db, target) = try PostgresLedger.connect(uri)
        guard try PostgresSchema.inspect(db, target: target) == .current else {
            throw LedgerError(
                "ledger \(target) is not at schema \(PostgresSchema.current): open it with this iapscreen first",
                code: .unknownSchema)
        }
        self.target = target
        super.init(database: PostgresDeskDatabase(db, target: target))
    }
}

/// A PostgreSQL connection as the desk's logic uses it: its statements numbered `$N`, its
/// reads in one snapshot.
final class PostgresDeskDatabase: DeskDatabase {
    let dialect = SQLDialect.postgres
    private let db: PostgresConnection
    private let target: String

    init(_ db: PostgresConnection, target: String) {
        self.db = db
        self.target = target
    }

    private func query(_ sql: String, _ values: [DeskValue]) throws(PostgresError) -> PostgresResult {
        try db.query(dialect.numbered(sql), values.map(PostgresParameter.init))
    }

    func rows<T>(_ sql: String, _ values: [DeskValue], _ row: (DeskRow) -> T?) throws(LedgerError) -> [T] {
        try onServer(target) { () throws(PostgresError) -> [T] in
            let r = try query(sql, values)
            var out: [T] = []
            for i in 0..<r.rowCount {
                if let value = row(try DeskRow(r, i)) { out.append(value) }
            }
            return out
        }
    }

    func run(_ sql: String, _ values: [DeskValue]) throws(LedgerError) -> Int {
        try onServer(target) { () throws(PostgresError) in try query(sql, values).affectedRows }
    }

    func reading<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try inTransaction(db, target, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    func writing<T>(keep: (T) -> Bool, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try inTransaction(db, target, keep: keep, body)
    }
}

extension PostgresParameter {
    /// A desk value as a parameter; NULL for a nil payload.
    init(_ value: DeskValue) {
        switch value {
        case .text(let t): self.init(t)
        case .int(let i): self = i.map(PostgresParameter.int64) ?? .null
        case .bool(let b): self = .bool(b)
        }
    }
}

extension DeskRow {
    /// Row `i` of a result.
    init(_ r: PostgresResult, _ i: Int) throws(PostgresError) {
        cells = try (0..<r.columnCount).map { c throws(PostgresError) in try r.text(i, c) }
    }
}
