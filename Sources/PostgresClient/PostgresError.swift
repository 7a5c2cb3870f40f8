/// What PostgreSQL or libpq said when something failed: libpq's own message (passwords
/// removed) and the SQLSTATE when the server gave one.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// e.g. `28P01` wrong password, `42P01` no such table; nil when libpq failed by itself
    /// (cannot connect, connection lost).
    public var sqlState: String?

    public init(_ message: String, sqlState: String? = nil) {
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }
}
