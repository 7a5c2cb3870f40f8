// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).
import IAPBasics
import JSONText

/// A JSON object a store wrote, read field by field: scalars may be strings or numbers,
/// `null` and `""` mean absent, and a bad value is a `DecodeError` naming the field
/// (`receipt.in_app[2].quantity`) at the offset of its value.
struct StoreJSONFields {
    let object: JSONObject
    /// From the root of `origin.json` to this object.
    let path: [JSONPathStep]
    let origin: TextOrigin

    init(_ object: JSONObject, path: [JSONPathStep] = [], origin: TextOrigin) {
        self.object = object
        self.path = path
        self.origin = origin
    }

    /// Parses `bytes` as a JSON object; parser errors come back relocated through `origin`.
    static func parse(
        _ bytes: [UInt8], origin: TextOrigin, limits: Limits,
        what: String
    ) throws(DecodeError) -> StoreJSONFields {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw origin.relocate(error)
        }
        guard case .object(let object) = value else {
            throw origin.relocate(
                DecodeError("not-an-object", "\(what) is \(value.kindName), not a JSON object", at: 0))
        }
        return StoreJSONFields(object, origin: origin)
    }

    func fail(_ code: String, _ reason: String, at key: String) -> DecodeError {
        DecodeError(code, "\(name(of: key)): \(reason)", at: origin.offset(of: path + [.key(key)]))
    }

    func name(of key: String) -> String {
        var s = ""
        for step in path + [.key(key)] {
            switch step {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s
    }

    /// The member's value; nil when absent, null or the empty string.
    func value(_ key: String) -> JSONValue? {
        guard let v = object[key] else { return nil }
        switch v {
        case .null: return nil
        case .string(let s) where s.isEmpty: return nil
        default: return v
        }
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// A string, or a number's text (ids are written both ways).
    func text(_ key: String) throws(DecodeError) -> String? {
        guard let v = value(key) else { return nil }
        switch v {
        case .string(let s): return s
        case .number(let n): return n
        default: throw fail("bad-field-type", "expected text, found \(v.kindName)", at: key)
        }
    }

    /// The first of `keys` present, as text (a field renamed between API versions).
    func text(first keys: String...) throws(DecodeError) -> String? {
        for key in keys where has(key) { return try text(key) }
        return nil
    }

    /// The first of `keys` present, as an integer.
    func integer(first keys: String...) throws(DecodeError) -> Int64? {
        for key in keys where has(key) { return try integer(key) }
        return nil
    }

    /// An exact integer, written as a number or as a string of digits.
    func integer(_ key: String) throws(DecodeError) -> Int64? {
        guard let t = try text(key) else { return nil }
        switch DecimalText.read(t) {
        case .value(let v, fractional: false): return v
        case .value(_, fractional: true): throw fail("bad-number", "\(quoted(t)) is not a whole number", at: key)
        case .outOfRange: throw fail("number-out-of-range", "\(quoted(t)) does not fit in 64 bits", at: key)
        case .notANumber: throw fail("bad-number", "\(quoted(t)) is not a number", at: key)
        }
    }

    /// A count that cannot be negative (`quantity`).
    func count(_ key: String) throws(DecodeError) -> Int64? {
        guard let v = try integer(key) else { return nil }
        guard v >= 0 else { throw fail("bad-number", "\(v) is negative", at: key) }
        return v
    }

    /// Epoch milliseconds; with `truncating`, a fraction is dropped (Xcode writes `1698148900000.123`).
    func epochMillis(_ key: String, truncating: Bool = false) throws(DecodeError) -> Timestamp? {
        guard let t = try text(key) else { return nil }
        let ms: Int64
        switch DecimalText.read(t) {
        case .value(let v, let fractional):
            guard truncating || !fractional else {
                throw fail("bad-date", "\(quoted(t)) is not a whole number of milliseconds", at: key)
            }
            ms = v
        case .outOfRange: throw fail("date-out-of-range", "\(quoted(t)) ms does not fit in 64 bits", at: key)
        case .notANumber: throw fail("bad-date", "\(quoted(t)) is not epoch milliseconds", at: key)
        }
        guard let stamp = Timestamp(millis: ms) else {
            throw fail("date-out-of-range", "\(ms) ms is outside the years 1 to 9999", at: key)
        }
        return stamp
    }

    /// A verifyReceipt date: `<key>_ms` (epoch ms) when present, else `<key>` as
    /// `2020-07-14 19:36:40 Etc/GMT` or, in iOS 6 responses, epoch ms.
    func appleDate(_ key: String) throws(DecodeError) -> Timestamp? {
        if has(key + "_ms") { return try epochMillis(key + "_ms") }
        guard let t = try text(key) else { return nil }
        if case .value(let n, fractional: false) = DecimalText.read(t) {
            guard let stamp = Timestamp.fromEpochNumber(n) else {
                throw fail("date-out-of-range", "\(quoted(t)) is outside the years 1 to 9999", at: key)
            }
            return stamp
        }
        guard let stamp = Timestamp.parse(t) else {
            throw fail("bad-date", "\(quoted(t)) is not a date", at: key)
        }
        return stamp
    }

    func object(_ key: String) throws(DecodeError) -> StoreJSONFields? {
        guard let v = value(key) else { return nil }
        guard case .object(let o) = v else {
            throw fail("bad-field-type", "expected an object, found \(v.kindName)", at: key)
        }
        return StoreJSONFields(o, path: path + [.key(key)], origin: origin)
    }

    /// An array of objects; a lone object counts as a list of one (iOS 6 `latest_receipt_info`).
    func objects(_ key: String) throws(DecodeError) -> [StoreJSONFields] {
        guard let v = value(key) else { return [] }
        switch v {
        case .object(let o):
            return [StoreJSONFields(o, path: path + [.key(key)], origin: origin)]
        case .array(let items):
            var out: [StoreJSONFields] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else {
                    throw DecodeError(
                        "bad-field-type", "\(name(of: key))[\(i)]: expected an object, found \(item.kindName)",
                        at: origin.offset(of: path + [.key(key), .index(i)]))
                }
                out.append(StoreJSONFields(o, path: path + [.key(key), .index(i)], origin: origin))
            }
            return out
        default:
            throw fail("bad-field-type", "expected a list of objects, found \(v.kindName)", at: key)
        }
    }

    /// Standard base64 held in a string member (line breaks allowed), decoded.
    func base64(_ key: String, limits: Limits) throws(DecodeError) -> [UInt8]? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else {
            throw fail("bad-field-type", "expected base64 text, found \(v.kindName)", at: key)
        }
        do {
            return try Base64.decode(Array(s.utf8), alphabet: .standard, maxBytes: limits.maxPayloadBytes)
        } catch {
            throw origin.inString(at: path + [.key(key)], json: nil)
                .relocate(DecodeError(error.code, "\(name(of: key)): \(error.reason)", at: error.offset))
        }
    }

    /// Copies each present member into `extras` as written.
    func copy(_ names: [ExtraName], into extras: inout [(key: String, value: JSONValue)]) {
        for name in names {
            if let v = value(name.store) { extras.append((name.extra, v)) }
        }
    }

    private func quoted(_ t: String) -> String {
        t.count > 40 ? "\"\(t.prefix(40))…\"" : "\"\(t)\""
    }
}

/// A store field kept in `extras`, under a snake_case name like the rest of `decode`'s output.
struct ExtraName: Sendable {
    let store: String
    let extra: String

    /// `appAppleId` -> `app_apple_id`, `notificationUUID` -> `notification_uuid`.
    init(_ store: String) {
        self.store = store
        self.extra = snakeCase(store)
    }

    init(_ store: String, as extra: String) {
        self.store = store
        self.extra = extra
    }

    static func list(_ stores: [String]) -> [ExtraName] { stores.map { ExtraName($0) } }
}

/// `appAppleId` -> `app_apple_id`; names already in snake_case stay as they are.
private func snakeCase(_ name: String) -> String {
    var out = ""
    var previousIsLower = false
    for ch in name {
        if ch.isUppercase {
            if previousIsLower { out.append("_") }
            out += ch.lowercased()
            previousIsLower = false
        } else {
            out.append(ch)
            previousIsLower = ch.isLowercase || ch.isNumber
        }
    }
    return out
}

extension JSONValue {
    /// For error messages: what a value is, in words.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true/false"
        case .number: return "a number"
        case .string: return "text"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
