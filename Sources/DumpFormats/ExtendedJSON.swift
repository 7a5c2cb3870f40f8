import IAPBasics
import JSONText

/// mongoexport's Extended JSON (v2 relaxed and canonical, and v1 "strict"), field values:
///
///     {"$date": "2024-03-01T12:00:00Z"}              ISO text        -> timestamp
///     {"$date": 1709294400000}                       epoch ms        -> timestamp
///     {"$date": {"$numberLong": "1709294400000"}}    epoch ms        -> timestamp
///     {"$numberLong" | "$numberInt" | "$numberDouble" | "$numberDecimal" | "$oid": "…"} -> its text
///
/// (https://www.mongodb.com/docs/manual/reference/mongodb-extended-json/). Plain numbers
/// keep their exact text, booleans become `true`/`false`; any other object or array (a
/// receipt stored as an object) becomes its compact JSON text. A `$date` that is not a
/// time stays text, so the mapping can say what it was.
public enum ExtendedJSON {
    private static let scalarWrappers: Set<String> = [
        "$numberLong", "$numberInt", "$numberDouble", "$numberDecimal", "$oid",
    ]

    static func dumpValue(_ value: JSONValue) -> DumpValue {
        switch value {
        case .null: return .null
        case .string(let s), .number(let s): return .text(s)
        case .bool(let b): return .text(b ? "true" : "false")
        case .array: return .text(value.jsonText)
        case .object(let object):
            if object.members.count == 1, let only = object.members.first {
                if only.key == "$date" { return date(only.value) }
                if scalarWrappers.contains(only.key), let text = only.value.string { return .text(text) }
            }
            return .text(value.jsonText)
        }
    }

    private static func date(_ value: JSONValue) -> DumpValue {
        switch value {
        case .string(let iso):
            return Timestamp.parse(iso).map(DumpValue.timestamp) ?? .text(iso)
        case .number:
            guard let ms = value.int64, let t = Timestamp(millis: ms) else { return .text(value.jsonText) }
            return .timestamp(t)
        case .object(let inner):
            guard inner.members.count == 1, let long = inner["$numberLong"], let ms = long.int64,
                let t = Timestamp(millis: ms)
            else { return .text(value.jsonText) }
            return .timestamp(t)
        default:
            return .text(value.jsonText)
        }
    }

    /// "an array", "a string", … for a malformed-record reason.
    /// A JSON value's kind in words (`an object`, `a number`), for messages about input.
    public static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
