import CLibPQ

/// The rows of one statement, in text format; cleared in `deinit`. Every cell is data from
/// outside: reading one that is missing or not of the asked type throws, never traps.
public final class PostgresResult {
    private let result: OpaquePointer
    public let rowCount: Int
    public let columnCount: Int

    init(_ result: OpaquePointer) {
        self.result = result
        rowCount = Int(PQntuples(result))
        columnCount = Int(PQnfields(result))
    }

    deinit { PQclear(result) }

    /// The rows a command changed (INSERT, UPDATE, DELETE, COPY); 0 when it says none.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The cell as text; nil for NULL.
    public func text(_ row: Int, _ column: Int) throws(PostgresError) -> String? {
        let (r, c) = try cell(row, column)
        guard PQgetisnull(result, r, c) == 0 else { return nil }
        let length = Int(PQgetlength(result, r, c))
        guard let value = PQgetvalue(result, r, c) else { return nil }
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The cell as an integer; nil for NULL.
    public func int64(_ row: Int, _ column: Int) throws(PostgresError) -> Int64? {
        guard let text = try text(row, column) else { return nil }
        guard let value = Int64(text) else {
            throw PostgresError("row \(row) column \(column): \"\(text)\" is not an integer")
        }
        return value
    }

    /// The cell as a boolean (`t` or `f`); nil for NULL.
    public func bool(_ row: Int, _ column: Int) throws(PostgresError) -> Bool? {
        switch try text(row, column) {
        case nil: return nil
        case "t": return true
        case "f": return false
        case let other?: throw PostgresError("row \(row) column \(column): \"\(other)\" is not a boolean")
        }
    }

    private func cell(_ row: Int, _ column: Int) throws(PostgresError) -> (Int32, Int32) {
        guard (0..<rowCount).contains(row), (0..<columnCount).contains(column), let r = Int32(exactly: row),
            let c = Int32(exactly: column)
        else {
            throw PostgresError(
                "no cell at row \(row), column \(column): the result has \(rowCount) rows of \(columnCount) columns")
        }
        return (r, c)
    }
}
