/// Where the SQL the desk shares between the backends differs (`QueueQuery`, `LedgerDeskStore`):
/// statements are written once, parameters numbered SQLite's way (`?1`), tables by their bare
/// names (a PostgreSQL connection's search path is schema `iapscreen`), `"user"` and `"by"`
/// quoted (PostgreSQL reserves USER).
enum SQLDialect: Sendable {
    case sqlite, postgres

    func parameter(_ n: Int) -> String { self == .sqlite ? "?\(n)" : "$\(n)" }

    /// `sql` with its `?N` parameters as this dialect numbers them. The desk's statements hold
    /// no `?` but in parameters (values are bound, never spliced).
    func numbered(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        let next = sql.dropFirst().map(Optional.some) + [nil]
        return String(zip(sql, next).map { c, after in c == "?" && (after?.isASCIIDigit ?? false) ? "$" : c })
    }

    /// What a read of the order's desk row ends with inside a decision's transaction: on
    /// PostgreSQL a row lock, held to the end of it, so that of two desks deciding one order
    /// the second reads what the first wrote. (SQLite's BEGIN IMMEDIATE has locked the file.)
    var lockingRead: String { self == .sqlite ? "" : " FOR UPDATE" }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
