// Shared by the verifyReceipt, JWS and Google purchase decoders (the file name follows
// the ownership of the tree, not the scope).
import IAPBasics
import JSONText

/// How a reader names a member: by its text, or as an `AppStoreField`, which a scanned
/// object has found already (asking for it then compares no name).
protocol FieldName: Sendable {
    /// The name as the store spells it.
    var spelling: String { get }
    var appStoreField: AppStoreField? { get }
}

extension String: FieldName {
    var spelling: String { self }
    var appStoreField: AppStoreField? { nil }
}

/// A JSON object a store wrote, read field by field: scalars may be strings or numbers,
/// `null` and `""` mean absent, and a bad value is a `DecodeError` naming the field
/// (`receipt.in_app[2].quantity`) at the offset of its value. Its readers name the fields
/// by `Name`: text, or `AppStoreField`.
struct StoreJSONFields<Name: FieldName> {
    /// The members: made (`JSONObject`), or only found (`scan`).
    private enum Members {
        case made(JSONObject)
        case scanned(ScannedJSONObject)
    }

    private let storage: Members
    /// From the root of `origin.json` to this object.
    let path: [JSONPathStep]
    let origin: TextOrigin

    init(_ object: JSONObject, path: [JSONPathStep] = [], origin: TextOrigin) {
        self.storage = .made(object)
        self.path = path
        self.origin = origin
    }

    private init(_ storage: Members, path: [JSONPathStep], origin: TextOrigin) {
        self.storage = storage
        self.path = path
        self.origin = origin
    }

    /// Parses `bytes` as a JSON object; parser errors come back relocated through `origin`.
    static func parse(
        _ bytes: [UInt8], origin: TextOrigin, limits: Limits,
        what: String
    ) throws(DecodeError) -> StoreJSONFields {
        StoreJSONFields(try parseObject(bytes, origin: origin, limits: limits, what: what), origin: origin)
    }

    /// The object `parse` reads.
    static func parseObject(
        _ bytes: [UInt8], origin: TextOrigin, limits: Limits,
        what: String
    ) throws(DecodeError) -> JSONObject {
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
        return object
    }

    /// As `parse`, with the same errors, but no value is made until it is asked for, and
    /// the members named as an `AppStoreField` are found in the one pass: an App Store
    /// payload is read for a few of its members, once.
    static func scan(
        _ bytes: [UInt8], origin: TextOrigin, limits: Limits,
        what: String
    ) throws(DecodeError) -> StoreJSONFields {
        var members: [JSONMember] = []
        // Room for an App Store payload's members at once (about twenty).
        members.reserveCapacity(32)
        let kind: JSONKind
        do {
            kind = try JSONParser.scan(bytes, limits: limits, members: &members)
        } catch {
            throw origin.relocate(error)
        }
        guard kind == .object else {
            throw origin.relocate(DecodeError("not-an-object", "\(what) is \(kind.name), not a JSON object", at: 0))
        }
        return try StoreJSONFields(scanned: members, in: bytes, limits: limits, path: [], origin: origin)
    }

    private init(
        scanned members: [JSONMember], in text: [UInt8], limits: Limits, path: [JSONPathStep], origin: TextOrigin
    ) throws(DecodeError) {
        do {
            self.init(.scanned(try ScannedJSONObject(members, in: text, limits: limits)), path: path, origin: origin)
        } catch {
            throw origin.relocate(error)
        }
    }

    /// Whether the object has `key` at all, even as null or "".
    func contains(_ key: Name) -> Bool {
        switch storage {
        case .made(let object): return object[key.spelling] != nil
        case .scanned(let object): return object.find(key) != nil
        }
    }

    func fail(_ code: String, _ reason: String, at key: Name) -> DecodeError {
        DecodeError(code, "\(name(of: key)): \(reason)", at: origin.offset(of: path + [.key(key.spelling)]))
    }

    func name(of key: Name) -> String {
        var s = ""
        for step in path + [.key(key.spelling)] {
            switch step {
            case .key(let k): s += s.isEmpty ? k : "." + k
            case .index(let i): s += "[\(i)]"
            }
        }
        return s
    }

    /// The member's value; nil when absent, null or the empty string.
    func value(_ key: Name) throws(DecodeError) -> JSONValue? {
        switch storage {
        case .made(let object):
            guard let v = object[key.spelling] else { return nil }
            switch v {
            case .null: return nil
            case .string(let s) where s.isEmpty: return nil
            default: return v
            }
        case .scanned(let object):
            guard let span = object.find(key), Self.isPresent(span) else { return nil }
            if let range = object.asWritten(span) {
                let text = object.string(range)
                return span.kind == .number ? .number(text) : .string(text)
            }
            do {
                return try JSONParser.value(at: span, in: object.text, limits: object.limits)
            } catch {
                throw origin.relocate(error)
            }
        }
    }

    /// `body` with a scanned string member's text where it stands (written without escapes,
    /// so its bytes are its value); nil when the member is absent, null or "", or is not
    /// such a string (`value` then makes it).
    func withWrittenText<T>(_ key: Name, _ body: (UnsafeRawBufferPointer) throws(DecodeError) -> T)
        throws(DecodeError) -> T?
    {
        guard case .scanned(let object) = storage, let span = object.find(key), Self.isPresent(span),
            span.kind == .string, let range = object.asWritten(span)
        else { return nil }
        let result = object.text.withUnsafeBytes { bytes in
            Result { () throws(DecodeError) in try body(UnsafeRawBufferPointer(rebasing: bytes[range])) }
        }
        return try result.get()
    }

    /// Whether the member is there, neither null nor "" (`value` is not nil), its value not made.
    func has(_ key: Name) -> Bool {
        switch storage {
        case .made(let object):
            switch object[key.spelling] {
            case nil, .null: return false
            case .string(let s): return !s.isEmpty
            default: return true
            }
        case .scanned(let object):
            return object.find(key).map(Self.isPresent) ?? false
        }
    }

    /// Neither null nor "" (no escape makes an empty string, so "" is two quotes).
    private static func isPresent(_ span: JSONSpan) -> Bool {
        span.kind != .null && !(span.kind == .string && span.end - span.start == 2)
    }

    /// A string, or a number's text (ids are written both ways).
    func text(_ key: Name) throws(DecodeError) -> String? {
        if case .scanned(let object) = storage, let span = object.find(key), let range = object.asWritten(span) {
            return range.isEmpty ? nil : object.string(range)
        }
        guard let v = try value(key) else { return nil }
        switch v {
        case .string(let s): return s
        case .number(let n): return n
        default: throw fail("bad-field-type", "expected text, found \(v.kindName)", at: key)
        }
    }

    /// The first of two keys present, as text (a field renamed between API versions).
    func text(first key: Name, _ other: Name) throws(DecodeError) -> String? {
        try text(has(key) ? key : other)
    }

    /// The first of two keys present, as an integer.
    func integer(first key: Name, _ other: Name) throws(DecodeError) -> Int64? {
        try integer(has(key) ? key : other)
    }

    /// What `DecimalText` reads in the member's text (`text(key)`): in place when it was
    /// scanned, without making the text; nil when absent.
    private func decimal(_ key: Name) throws(DecodeError) -> DecimalText.Reading? {
        if case .scanned(let object) = storage, let span = object.find(key), let range = object.asWritten(span) {
            guard !range.isEmpty else { return nil }
            return object.text.withUnsafeBytes { DecimalText.read(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
        return try text(key).map { DecimalText.read($0) }
    }

    /// The member's text quoted for an error message (`decimal` read it).
    private func quotedText(_ key: Name) throws(DecodeError) -> String {
        quoted(try text(key) ?? "")
    }

    /// An exact integer, written as a number or as a string of digits.
    func integer(_ key: Name) throws(DecodeError) -> Int64? {
        guard let reading = try decimal(key) else { return nil }
        switch reading {
        case .value(let v, fractional: false): return v
        case .value(_, fractional: true):
            throw fail("bad-number", "\(try quotedText(key)) is not a whole number", at: key)
        case .outOfRange: throw fail("number-out-of-range", "\(try quotedText(key)) does not fit in 64 bits", at: key)
        case .notANumber: throw fail("bad-number", "\(try quotedText(key)) is not a number", at: key)
        }
    }

    /// A count that cannot be negative (`quantity`).
    func count(_ key: Name) throws(DecodeError) -> Int64? {
        guard let v = try integer(key) else { return nil }
        guard v >= 0 else { throw fail("bad-number", "\(v) is negative", at: key) }
        return v
    }

    /// Epoch milliseconds; with `truncating`, a fraction is dropped (Xcode writes `1698148900000.123`).
    func epochMillis(_ key: Name, truncating: Bool = false) throws(DecodeError) -> Timestamp? {
        guard let reading = try decimal(key) else { return nil }
        let ms: Int64
        switch reading {
        case .value(let v, let fractional):
            guard truncating || !fractional else {
                throw fail("bad-date", "\(try quotedText(key)) is not a whole number of milliseconds", at: key)
            }
            ms = v
        case .outOfRange: throw fail("date-out-of-range", "\(try quotedText(key)) ms does not fit in 64 bits", at: key)
        case .notANumber: throw fail("bad-date", "\(try quotedText(key)) is not epoch milliseconds", at: key)
        }
        guard let stamp = Timestamp(millis: ms) else {
            throw fail("date-out-of-range", "\(ms) ms is outside the years 1 to 9999", at: key)
        }
        return stamp
    }

    func object(_ key: Name) throws(DecodeError) -> StoreJSONFields? {
        let inner = path + [.key(key.spelling)]
        if case .scanned(let object) = storage {
            guard let span = object.find(key), Self.isPresent(span) else { return nil }
            guard span.kind == .object else {
                throw fail("bad-field-type", "expected an object, found \(span.kind.name)", at: key)
            }
            var found: [JSONMember] = []
            do {
                try JSONParser.members(ofObjectAt: span.start, in: object.text, limits: object.limits, members: &found)
            } catch {
                throw origin.relocate(error)
            }
            return try StoreJSONFields(
                scanned: found, in: object.text, limits: object.limits, path: inner, origin: origin)
        }
        guard let v = try value(key) else { return nil }
        guard case .object(let o) = v else {
            throw fail("bad-field-type", "expected an object, found \(v.kindName)", at: key)
        }
        return StoreJSONFields(o, path: inner, origin: origin)
    }

    /// Copies each present member into `extras` as written.
    func copy(_ names: [ExtraName<Name>], into extras: inout [(key: String, value: JSONValue)])
        throws(DecodeError)
    {
        // Grown once: a JWS transaction copies four or five of its ten. By index: an element
        // taken whole would retain its extra name for nothing.
        var present = 0
        for i in names.indices where has(names[i].store) { present += 1 }
        guard present > 0 else { return }
        extras.reserveCapacity(extras.count + present)
        for i in names.indices {
            if let v = try value(names[i].store) { extras.append((names[i].extra, v)) }
        }
    }

    func quoted(_ t: String) -> String {
        t.count > 40 ? "\"\(t.prefix(40))…\"" : "\"\(t)\""
    }
}

extension StoreJSONFields where Name == String {
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

    /// An array of objects; a lone object counts as a list of one (iOS 6 `latest_receipt_info`).
    func objects(_ key: String) throws(DecodeError) -> [StoreJSONFields] {
        guard let v = try value(key) else { return [] }
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
        guard let v = try value(key) else { return nil }
        guard case .string(let s) = v else {
            throw fail("bad-field-type", "expected base64 text, found \(v.kindName)", at: key)
        }
        do {
            return try Base64.decode(s, alphabet: .standard, maxBytes: limits.maxPayloadBytes)
        } catch {
            throw origin.inString(at: path + [.key(key)], json: nil)
                .relocate(DecodeError(error.code, "\(name(of: key)): \(error.reason)", at: error.offset))
        }
    }
}

/// An object's members as places in `text`, which `JSONParser.scan` accepted. A class: the
/// fields that hold it are copied freely, its slots never are.
private final class ScannedJSONObject {
    let members: [JSONMember]
    let text: [UInt8]
    /// What `text` was scanned with: a value made from it is read under the same caps.
    let limits: Limits
    /// By `AppStoreField.rawValue`: the last member of that name, or -1.
    private let slots: InlineArray<64, Int32>
    /// Whether every `AppStoreField` member has its slot (else names are compared).
    private let slotted: Bool
    /// The names spelt with escapes (hardly ever any), as they read, by member index.
    private let escapedNames: [(member: Int, name: String)]

    init(_ members: [JSONMember], in text: [UInt8], limits: Limits) throws(DecodeError) {
        self.members = members
        self.text = text
        self.limits = limits
        var escapedNames: [(member: Int, name: String)] = []
        for (i, m) in members.enumerated() where !m.key.isPlain {
            guard case .string(let name) = try JSONParser.value(at: m.key, in: text, limits: limits) else { continue }
            escapedNames.append((i, name))
        }
        let table = AppStoreField.spellingTable
        var slots = InlineArray<64, Int32>(repeating: -1)
        var slotted = true
        text.withUnsafeBytes { bytes in
            // In document order: of a repeated name, the last member keeps the slot.
            for (i, m) in members.enumerated() {
                let field: AppStoreField?
                if m.key.isPlain {
                    let name = UnsafeRawBufferPointer(rebasing: bytes[(m.key.start + 1)..<(m.key.end - 1)])
                    field = AppStoreField.spelt(name, in: table)
                } else {
                    field = escapedNames.first { $0.member == i }.flatMap { AppStoreField(spelling: $0.name) }
                }
                guard let field else { continue }
                guard field.rawValue < slots.count, let slot = Int32(exactly: i) else {
                    slotted = false
                    continue
                }
                slots[field.rawValue] = slot
            }
        }
        self.slots = slots
        self.slotted = slotted
        self.escapedNames = escapedNames
    }

    /// Where the text of a number or a string without escapes stands in `text`: the value
    /// is those bytes as they are (a string's without its quotes). Nil for any other value.
    func asWritten(_ span: JSONSpan) -> Range<Int>? {
        switch span.kind {
        case .number: return span.start..<span.end
        case .string where span.isPlain: return (span.start + 1)..<(span.end - 1)
        default: return nil
        }
    }

    /// The text at `range`, which the scan found to be UTF-8.
    func string(_ range: Range<Int>) -> String {
        text.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The last member named `key`, as `JSONObject` finds it: names compared as they read.
    func find(_ key: some FieldName) -> JSONSpan? {
        if slotted, let field = key.appStoreField ?? AppStoreField(spelling: key.spelling),
            field.rawValue < slots.count
        {
            let slot = Int(slots[field.rawValue])
            return slot < 0 ? nil : members[slot].value
        }
        // Compared with each member's name, last first.
        var spelling = key.spelling
        return spelling.withUTF8 { want in
            text.withUnsafeBytes { bytes in
                for i in members.indices.reversed() {
                    let name = members[i].key
                    let same =
                        name.isPlain
                        ? UnsafeRawBufferPointer(rebasing: bytes[(name.start + 1)..<(name.end - 1)])
                            .elementsEqual(UnsafeRawBufferPointer(want))
                        : escapedNames.contains { $0.member == i && $0.name == key.spelling }
                    if same { return members[i].value }
                }
                return nil
            }
        }
    }
}

/// A store field kept in `extras`, under a snake_case name like the rest of `decode`'s output.
struct ExtraName<Name: FieldName>: Sendable {
    let store: Name
    let extra: String

    /// `appAppleId` -> `app_apple_id`, `notificationUUID` -> `notification_uuid`.
    init(_ store: Name) {
        self.store = store
        self.extra = snakeCase(store.spelling)
    }

    init(_ store: Name, as extra: String) {
        self.store = store
        self.extra = extra
    }

    static func list(_ stores: [Name]) -> [ExtraName] { stores.map { ExtraName($0) } }
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
    var kindName: String { kind.name }
}

extension JSONKind {
    /// For error messages: what a value is, in words.
    var name: String {
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
