import CLibPQ

/// Rows in COPY's text format, gathered before they are sent:
///
///     one line per row, fields separated by a tab; NULL is \N; in a value, backslash, tab,
///     newline and carriage return are written \\ \t \n \r     (PostgreSQL docs, COPY, "Text Format")
public struct PostgresCopyRows {
    var bytes: [UInt8] = []
    private var fieldsInRow = 0

    public mutating func add(_ value: String?) {
        separate()
        guard let value else {
            bytes += [UInt8(ascii: "\\"), UInt8(ascii: "N")]
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            default: bytes.append(byte)
            }
        }
    }

    public mutating func add(_ value: Int64?) {
        separate()
        if let value { bytes += String(value).utf8 } else { bytes += [UInt8(ascii: "\\"), UInt8(ascii: "N")] }
    }

    public mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
        fieldsInRow = 0
    }

    private mutating func separate() {
        if fieldsInRow > 0 { bytes.append(UInt8(ascii: "\t")) }
        fieldsInRow += 1
    }
}

extension PostgresConnection {
    /// `COPY … FROM STDIN` with `count` rows, `row(&rows, i)` writing row i: the fast way to
    /// write many rows. Sent about a megabyte at a time. Returns the rows the server took.
    @discardableResult
    public func copyIn(_ sql: String, count: Int, row: (inout PostgresCopyRows, Int) -> Void) throws(PostgresError)
        -> Int
    {
        _ = try checked(PQexec(conn, sql), sql)
        var rows = PostgresCopyRows()
        var failed: PostgresError?
        for i in 0..<count {
            row(&rows, i)
            if rows.bytes.count >= 1 << 20 {
                if let e = send(rows.bytes) {
                    failed = e
                    break
                }
                rows.bytes.removeAll(keepingCapacity: true)
            }
        }
        if failed == nil, !rows.bytes.isEmpty { failed = send(rows.bytes) }
        // Ending the COPY with a message makes the server fail it; its result is then read either way.
        let ended = failed == nil ? PQputCopyEnd(conn, nil) : PQputCopyEnd(conn, "iapscreen stopped sending rows")
        if ended != 1, failed == nil { failed = error(nil) }
        var taken = 0
        while let result = PQgetResult(conn) {
            do throws(PostgresError) {
                taken = try checked(result, sql).affectedRows
            } catch {
                if failed == nil { failed = error }
            }
        }
        if let failed { throw failed }
        return taken
    }

    /// nil when libpq took the bytes.
    private func send(_ bytes: [UInt8]) -> PostgresError? {
        guard let n = Int32(exactly: bytes.count) else { return PostgresError("a COPY block is too long") }
        let sent = bytes.withUnsafeBytes { raw in
            PQputCopyData(conn, raw.baseAddress?.assumingMemoryBound(to: CChar.self), n)
        }
        return sent == 1 ? nil : error(nil)
    }
}
