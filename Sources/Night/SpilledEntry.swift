import JSONText
import Screening

/// What the reports need of one order, as the spill file keeps it: its findings (without a
/// review mark: the ledger gives those later) and its receipt's key fields.
///
/// Written as bytes, not JSON: each of a night's flagged orders is written once and read
/// once, and neither way wants escaping or a parse tree. Little-endian; a count is a u32; a
/// string its UTF-8 length (u32, `absent` for nil) and bytes; an evidence value a tag and
/// its content:
///
///     entry      findings count | finding… | receipt fields count | (key, value)…
///     finding    order_id? | user_id? | rule | severity u8 | message | expected? | actual?
///                | extra count | (key, value tag…)… | exempted?
///     value      0 null | 1 false | 2 true | 3 number text | 4 string | 5 array count, value…
///                | 6 object count, (key, value)…
struct SpilledEntry {
    var findings: [Finding]
    var receiptFields: [(key: String, value: String)]

    static let absent = UInt32.max

    enum Tag: UInt8 {
        case null, `false`, `true`, number, string, array, object
    }

    /// Appends the entry's bytes to `out`.
    static func encode(_ findings: [Finding], receiptFields: [(key: String, value: String)], to out: inout [UInt8]) {
        put(count: findings.count, &out)
        for f in findings {
            put(f.orderID, &out)
            put(f.userID, &out)
            put(f.rule, &out)
            out.append(UInt8(clamping: f.severity.rawValue))
            put(f.message, &out)
            put(f.evidence.expected, &out)
            put(f.evidence.actual, &out)
            put(count: f.evidence.extra.count, &out)
            for (key, value) in f.evidence.extra {
                put(key, &out)
                put(value, &out)
            }
            put(f.exempted, &out)
        }
        put(count: receiptFields.count, &out)
        for (key, value) in receiptFields {
            put(key, &out)
            put(value, &out)
        }
    }

    private static func put(count: Int, _ out: inout [UInt8]) {
        LittleEndian.put(UInt32(clamping: count), into: &out)
    }

    private static func put(_ s: String?, _ out: inout [UInt8]) {
        guard let s else { return LittleEndian.put(absent, into: &out) }
        put(count: s.utf8.count, &out)
        out.append(contentsOf: s.utf8)
    }

    private static func put(_ v: JSONValue, _ out: inout [UInt8]) {
        switch v {
        case .null: out.append(Tag.null.rawValue)
        case .bool(let b): out.append((b ? Tag.true : Tag.false).rawValue)
        case .number(let n):
            out.append(Tag.number.rawValue)
            put(n, &out)
        case .string(let s):
            out.append(Tag.string.rawValue)
            put(s, &out)
        case .array(let items):
            out.append(Tag.array.rawValue)
            put(count: items.count, &out)
            for item in items { put(item, &out) }
        case .object(let o):
            out.append(Tag.object.rawValue)
            put(count: o.members.count, &out)
            for (key, value) in o.members {
                put(key, &out)
                put(value, &out)
            }
        }
    }

    /// Reads back what `encode` wrote; anything else is an error, never a crash.
    init(reading bytes: UnsafeRawBufferPointer) throws(FindingSpill.SpillError) {
        var r = Reader(bytes: bytes)
        let count = try r.count()
        findings = []
        findings.reserveCapacity(count)
        for _ in 0..<count {
            let orderID = try r.string()
            let userID = try r.string()
            let rule = try r.required()
            guard let severity = Severity(rawValue: Int(try r.byte())) else { throw Reader.damaged }
            let message = try r.required()
            let expected = try r.string()
            let actual = try r.string()
            let extraCount = try r.count()
            var extra: [(key: String, value: JSONValue)] = []
            extra.reserveCapacity(extraCount)
            for _ in 0..<extraCount { extra.append((try r.required(), try r.value(depth: 0))) }
            findings.append(
                Finding(
                    orderID: orderID, userID: userID, rule: rule, severity: severity, message: message,
                    evidence: Evidence(expected: expected, actual: actual, extra: extra), exempted: try r.string()))
        }
        let fieldCount = try r.count()
        receiptFields = []
        receiptFields.reserveCapacity(fieldCount)
        for _ in 0..<fieldCount { receiptFields.append((try r.required(), try r.required())) }
        guard r.at == bytes.count else { throw Reader.damaged }
    }

    /// A cursor over an entry's bytes: every read is checked against what is left.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        static let damaged = FindingSpill.SpillError(description: "the spill file holds something else than an entry")
        /// Evidence nests a value or two; deeper is not an entry this file wrote.
        static let maxDepth = 32

        mutating func byte() throws(FindingSpill.SpillError) -> UInt8 {
            guard at < bytes.count else { throw Self.damaged }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func uint32() throws(FindingSpill.SpillError) -> UInt32 {
            guard bytes.count - at >= 4 else { throw Self.damaged }
            defer { at += 4 }
            return LittleEndian.uint32(bytes, at)
        }

        /// A count of things that follow, each at least a byte.
        mutating func count() throws(FindingSpill.SpillError) -> Int {
            let n = Int(try uint32())
            guard n <= bytes.count - at else { throw Self.damaged }
            return n
        }

        mutating func string() throws(FindingSpill.SpillError) -> String? {
            let n = try uint32()
            guard n != SpilledEntry.absent else { return nil }
            guard Int(n) <= bytes.count - at else { throw Self.damaged }
            defer { at += Int(n) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + Int(n)]), as: UTF8.self)
        }

        mutating func required() throws(FindingSpill.SpillError) -> String {
            guard let s = try string() else { throw Self.damaged }
            return s
        }

        mutating func value(depth: Int) throws(FindingSpill.SpillError) -> JSONValue {
            guard depth < Self.maxDepth, let tag = Tag(rawValue: try byte()) else { throw Self.damaged }
            switch tag {
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .number: return .number(try required())
            case .string: return .string(try required())
            case .array:
                var items: [JSONValue] = []
                for _ in 0..<(try count()) { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case .object:
                var members: [(key: String, value: JSONValue)] = []
                for _ in 0..<(try count()) { members.append((try required(), try value(depth: depth + 1))) }
                return .object(JSONObject(members))
            }
        }
    }
}
