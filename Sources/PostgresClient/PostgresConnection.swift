import CLibPQ

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection; closed in `deinit`. Used from one thread at a time.
public final class PostgresConnection {
    let conn: OpaquePointer
    private let secrets: Secrets
    /// Where it is connected, as libpq reports it.
    public let target: PostgresTarget
    private var statements = 0

    /// Connects with a libpq URI or key/value string. The password comes from it, from
    /// PGPASSWORD or from ~/.pgpass (libpq looks). `applicationName` is what the server's
    /// pg_stat_activity shows for this session.
    public init(uri: String, applicationName: String = "iapscreen") throws(PostgresError) {
        secrets = Secrets(uri: uri, environment: environment())
        // The URI comes first (expand_dbname): what follows overrides it.
        let keywords = ["dbname", "application_name", "client_encoding"]
        let values = [uri, applicationName, "UTF8"]
        let connection = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let connection else {
            throw PostgresError("cannot connect to \(PostgresTarget(uri: uri)): libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let said = secrets.redact(trimmed(PQerrorMessage(connection)))
            PQfinish(connection)
            throw PostgresError("cannot connect to \(PostgresTarget(uri: uri)): \(said)")
        }
        conn = connection
        // libpq prints the server's notices on stderr by default ("schema … already exists, skipping").
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        target = PostgresTarget(
            host: string(PQhost(conn)), port: string(PQport(conn)), database: string(PQdb(conn)),
            user: string(PQuser(conn)))
    }

    deinit { PQfinish(conn) }

    /// Runs one or more statements without parameters (DDL, BEGIN, COMMIT).
    public func execute(_ sql: String) throws(PostgresError) {
        _ = try checked(PQexec(conn, sql), sql)
    }

    /// Runs one statement with parameters, sent with their types.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresParameter] = []) throws(PostgresError) -> PostgresResult {
        let encoded = try parameters.map { p throws(PostgresError) in try p.encoded() }
        let types = parameters.map { $0.kind?.oid ?? 0 }
        let result = try withParameters(encoded) { count, values, lengths, formats in
            PQexecParams(conn, sql, count, types, values, lengths, formats, 0)
        }
        return try checked(result, sql)
    }

    /// Prepares a statement on the server once; run it with `PostgresStatement.run`.
    public func prepare(_ sql: String, _ kinds: [PostgresParameter.Kind]) throws(PostgresError) -> PostgresStatement {
        statements += 1
        let name = "s\(statements)"
        guard let count = Int32(exactly: kinds.count) else { throw PostgresError("too many parameters") }
        _ = try checked(PQprepare(conn, name, sql, count, kinds.map(\.oid)), sql)
        return PostgresStatement(connection: self, name: name, sql: sql, kinds: kinds)
    }

    func runPrepared(_ name: String, _ sql: String, _ encoded: [[UInt8]?]) throws(PostgresError) -> PostgresResult {
        let result = try withParameters(encoded) { count, values, lengths, formats in
            PQexecPrepared(conn, name, count, values, lengths, formats, 0)
        }
        return try checked(result, sql)
    }

    /// Whether a transaction is open (also one that failed and waits for ROLLBACK).
    public var inTransaction: Bool {
        let status = PQtransactionStatus(conn)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Whether the connection still works (false after the server went away).
    public var isUsable: Bool { PQstatus(conn) == CONNECTION_OK }

    /// Takes the session advisory lock `key` if no other session holds it: true when taken.
    /// It is held until `advisoryUnlock` or the session ends (a killed process's too).
    public func tryAdvisoryLock(_ key: Int64) throws(PostgresError) -> Bool {
        try query("SELECT pg_try_advisory_lock($1)", [.int64(key)]).bool(0, 0) == true
    }

    /// Releases the session advisory lock `key`: false when this session did not hold it.
    @discardableResult
    public func advisoryUnlock(_ key: Int64) throws(PostgresError) -> Bool {
        try query("SELECT pg_advisory_unlock($1)", [.int64(key)]).bool(0, 0) == true
    }

    /// The result if the statement succeeded, else libpq's message (and the server's SQLSTATE).
    func checked(_ result: OpaquePointer?, _ sql: String) throws(PostgresError) -> PostgresResult {
        guard let result else { throw error(nil) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN else {
            let e = error(result)
            PQclear(result)
            throw e
        }
        return PostgresResult(result)
    }

    /// The error a failed statement or connection carries, cleaned of passwords.
    func error(_ result: OpaquePointer?) -> PostgresError {
        guard let result else { return PostgresError(secrets.redact(trimmed(PQerrorMessage(conn)))) }
        let state = PQresultErrorField(result, iapscreen_pg_diag_sqlstate()).map { String(cString: $0) }
        var message = trimmed(PQresultErrorMessage(result))
        if message.isEmpty { message = trimmed(PQerrorMessage(conn)) }
        return PostgresError(secrets.redact(message), sqlState: state)
    }
}

/// Parameters as libpq takes them: values, lengths, formats (1: binary), all valid for `body`.
private func withParameters(
    _ encoded: [[UInt8]?],
    _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> OpaquePointer?
)
    throws(PostgresError) -> OpaquePointer?
{
    guard let count = Int32(exactly: encoded.count) else { throw PostgresError("too many parameters") }
    var lengths: [Int32] = []
    for value in encoded {
        guard let length = Int32(exactly: value?.count ?? 0) else { throw PostgresError("a parameter is too long") }
        lengths.append(length)
    }
    let formats = [Int32](repeating: 1, count: encoded.count)
    // Each value copied to memory that stays put until libpq has sent it.
    let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { value in
        value.map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress {
                    UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: bytes.count)
                }
            }
            return p
        }
    }
    defer { for buffer in buffers { buffer?.deallocate() } }
    return body(count, buffers.map { $0.map { UnsafePointer($0) } }, lengths, formats)
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
}

private func trimmed(_ message: UnsafePointer<CChar>?) -> String {
    guard let message else { return "" }
    var s = Substring(String(cString: message))
    while let last = s.last, last.isWhitespace { s = s.dropLast() }
    return String(s)
}

private func string(_ value: UnsafePointer<CChar>?) -> String {
    value.map { String(cString: $0) } ?? "?"
}

private func environment() -> [String: String] {
    guard let password = getenv("PGPASSWORD") else { return [:] }
    return ["PGPASSWORD": String(cString: password)]
}
