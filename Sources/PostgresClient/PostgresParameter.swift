/// A parameter of a statement, sent in PostgreSQL's binary format with its length, so text
/// is never cut short and an array needs no quoting.
public enum PostgresParameter: Sendable {
    case null
    case text(String)
    case int64(Int64)
    case bool(Bool)
    case textArray([String])

    /// The type a statement declares for a parameter.
    public enum Kind: Sendable, Equatable {
        case text, int64, bool, textArray

        /// pg_type OIDs: text, int8, bool, text[].
        var oid: UInt32 {
            switch self {
            case .text: 25
            case .int64: 20
            case .bool: 16
            case .textArray: 1009
            }
        }
    }

    var kind: Kind? {
        switch self {
        case .null: nil
        case .text: .text
        case .int64: .int64
        case .bool: .bool
        case .textArray: .textArray
        }
    }

    /// The binary value; nil for NULL.
    ///
    ///     int8     8 bytes, big-endian
    ///     bool     1 byte, 1 or 0
    ///     text     the UTF-8 bytes
    ///     text[]   int32 ndim (0 when empty), int32 has-null (0), int32 element OID (25),
    ///              per dimension int32 size and int32 lower bound (1),
    ///              per element int32 length then its bytes      (src/backend/utils/adt/arrayfuncs.c, array_recv)
    func encoded() throws(PostgresError) -> [UInt8]? {
        switch self {
        case .null: return nil
        case .text(let s): return Array(s.utf8)
        case .int64(let v): return bigEndian(UInt64(bitPattern: v))
        case .bool(let b): return [b ? 1 : 0]
        case .textArray(let elements):
            guard let count = Int32(exactly: elements.count) else {
                throw PostgresError("an array of \(elements.count) is too long")
            }
            var out: [UInt8] = []
            out += bigEndian(UInt32(elements.isEmpty ? 0 : 1))
            out += bigEndian(UInt32(0))
            out += bigEndian(Kind.text.oid)
            if !elements.isEmpty {
                out += bigEndian(UInt32(bitPattern: count))
                out += bigEndian(UInt32(1))
            }
            for element in elements {
                guard let length = Int32(exactly: element.utf8.count) else {
                    throw PostgresError("an array element is too long")
                }
                out += bigEndian(UInt32(bitPattern: length))
                out += element.utf8
            }
            return out
        }
    }
}

private func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

extension PostgresParameter {
    /// Text, or NULL for nil.
    public init(_ text: String?) {
        self = text.map(PostgresParameter.text) ?? .null
    }
}
