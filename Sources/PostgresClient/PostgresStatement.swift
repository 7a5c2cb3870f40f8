/// A statement prepared on the server; it lives as long as its connection's session.
public final class PostgresStatement {
    private let connection: PostgresConnection
    private let name: String
    private let sql: String
    private let kinds: [PostgresParameter.Kind]

    init(connection: PostgresConnection, name: String, sql: String, kinds: [PostgresParameter.Kind]) {
        self.connection = connection
        self.name = name
        self.sql = sql
        self.kinds = kinds
    }

    /// Runs it with these parameters, each NULL or of the kind it was prepared with (the
    /// server reads binary values by the declared type, so a mismatch is refused here).
    @discardableResult
    public func run(_ parameters: [PostgresParameter]) throws(PostgresError) -> PostgresResult {
        guard parameters.count == kinds.count else {
            throw PostgresError("\(parameters.count) parameters given, \(kinds.count) expected, for \(sql)")
        }
        for (i, p) in parameters.enumerated() {
            if let kind = p.kind, kind != kinds[i] {
                throw PostgresError("parameter \(i + 1) is \(kind), \(kinds[i]) expected, for \(sql)")
            }
        }
        return try connection.runPrepared(name, sql, parameters.map { p throws(PostgresError) in try p.encoded() })
    }
}
