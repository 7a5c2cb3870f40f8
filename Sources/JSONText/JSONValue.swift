/// A parsed JSON document. Numbers keep their exact text: mongoexport prints Int64 beyond
/// 2^53 and prices as decimals, and neither may pass through a Double.
///
/// Not `indirect`: arrays and objects already live on the heap, so every other value is
/// stored inline instead of in a box of its own (one allocation less per JSON value).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var object: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var kind: JSONKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    /// A number, or a string holding one (verifyReceipt writes every scalar as a string),
    /// as an exact integer; nil for fractions, overflow or anything else.
    public var int64: Int64? {
        switch self {
        case .number(let t), .string(let t): return JSONValue.exactInt64(t)
        default: return nil
        }
    }

    /// The scalar as text: strings as they are, numbers as written, booleans as `true`/`false`.
    public var scalarText: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }

    static func exactInt64(_ text: String) -> Int64? {
        var t = Substring(text)
        // Accept `12.0`-style integers that some exporters write, but nothing fractional.
        if let dot = t.firstIndex(of: ".") {
            guard t[t.index(after: dot)...].allSatisfy({ $0 == "0" }) else { return nil }
            t = t[..<dot]
        }
        return Int64(t)
    }
}

/// What a JSON value is, without the value.
public enum JSONKind: UInt8, Sendable, Equatable {
    case null, bool, number, string, array, object
}

/// A JSON object with its members in document order. Lookups scan linearly: receipt and
/// dump objects have a few dozen keys. A repeated key: the last one wins, as in JavaScript.
public struct JSONObject: Sendable, Equatable {
    public var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of `key`; of duplicate keys the last wins. Lengths are compared first:
    /// most keys differ in length, and comparing that is far cheaper than the strings.
    public subscript(key: String) -> JSONValue? {
        let length = key.utf8.count
        for m in members.reversed() where m.key.utf8.count == length && m.key == key { return m.value }
        return nil
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for (x, y) in zip(a.members, b.members) where x.key != y.key || x.value != y.value { return false }
        return true
    }
}
