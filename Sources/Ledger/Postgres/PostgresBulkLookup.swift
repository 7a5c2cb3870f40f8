import PostgresClient

/// One bulk lookup (`claims(of:)` and the like) in the two ways it can be given its keys:
/// a few as one text[] parameter, or many copied into a temporary table that the server
/// joins at once. 10⁶ keys are a COPY and one join, not 10⁶ index descents (10⁶ claims
/// looked up: 5.3 s instead of 7-8 s in arrays, debug build on a busy 2-core machine).
/// Arrays stay for small sets and for read-only sessions, which cannot make a table.
final class PostgresBulkLookup {
    private let byArray: PostgresStatement
    private let byTable: String

    /// Keys sent as one array; more than this go through the table.
    static let arrayLimit = 20_000

    /// `SELECT <select> FROM <table> c WHERE c.<key> …keys… <rest>`; column 0 is the key.
    init(_ db: PostgresConnection, select: String, from table: String, key: String, rest: String = "")
        throws(PostgresError)
    {
        byArray = try db.prepare("SELECT \(select) FROM \(table) c WHERE c.\(key) = ANY($1) \(rest)", [.textArray])
        byTable = "SELECT \(select) FROM \(table) c WHERE c.\(key) IN (SELECT key FROM pg_temp.wanted) \(rest)"
    }

    /// The rows of these keys in one snapshot; `row` reads row i, nil leaves its key out.
    /// `canStage`: the session may create a temporary table (not read-only).
    func run<T>(
        _ db: PostgresConnection, _ keys: [String], canStage: Bool, target: String,
        _ row: (PostgresResult, Int) throws(PostgresError) -> T?
    ) throws(LedgerError) -> [String: T] {
        guard !keys.isEmpty else { return [:] }
        let staged = canStage && keys.count > PostgresBulkLookup.arrayLimit
        let begin = staged ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        return try inTransaction(db, target, begin) { () throws(LedgerError) in
            try onServer(target) { () throws(PostgresError) in
                var out: [String: T] = [:]
                out.reserveCapacity(min(keys.count, 1 << 20))
                func take(_ r: PostgresResult) throws(PostgresError) {
                    for i in 0..<r.rowCount {
                        if let key = try r.text(i, 0), let value = try row(r, i) { out[key] = value }
                    }
                }
                if staged {
                    try db.temporaryColumn("wanted", "key text COLLATE \"C\"", count: keys.count) { $0.add(keys[$1]) }
                    try take(db.query(byTable))
                    return out
                }
                var start = keys.startIndex
                while start < keys.endIndex {
                    let end =
                        keys.index(start, offsetBy: PostgresBulkLookup.arrayLimit, limitedBy: keys.endIndex)
                        ?? keys.endIndex
                    try take(byArray.run([.textArray(Array(keys[start..<end]))]))
                    start = end
                }
                return out
            }
        }
    }
}
