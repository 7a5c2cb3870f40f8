import IAPBasics
import JSONText

/// One receipt attribute: its type and its value OCTET STRING, which (but for opaque and
/// hash bytes) holds one complete DER value — a string, an INTEGER or, for type 17, a SET.
///
/// formats.md §1.2 (TPInAppReceipt `InAppReceiptPayload+SwiftASN1.swift`, RevenueCat
/// `AppleReceiptBuilder.swift`):
/// ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
struct AppReceiptAttribute {
    let type: Int64
    /// The reader of the attribute's SEQUENCE; `value` lies in its bytes. Borrowed: an
    /// attribute lives only inside `forEach`'s body.
    let reader: ASN1Reader
    let value: ASN1Element

    /// Reads every attribute of a `SET OF ReceiptAttribute` in order.
    static func forEach(
        in set: inout ASN1Reader,
        _ body: (AppReceiptAttribute) throws(DecodeError) -> Void
    ) throws(DecodeError) {
        while !set.isAtEnd {
            try set.readConstructed(.sequence) { (sequence) throws(DecodeError) in
                let type = try sequence.readInt64()
                _ = try sequence.read(.integer)
                let value = try sequence.readElement()
                let attribute = AppReceiptAttribute(type: type, reader: sequence, value: value)
                do throws(DecodeError) {
                    try body(attribute)
                } catch {
                    throw DecodeError(error.code, "attribute \(type): \(error.reason)", at: error.offset)
                }
            }
        }
    }

    /// A string value; nil when empty (Apple writes empty strings for absent values).
    func string() throws(DecodeError) -> String? {
        try reader.readEncapsulated(in: value) { (inner) throws(DecodeError) -> String? in
            let text = try inner.string(inner.readElement())
            return text.isEmpty ? nil : text
        }
    }

    func int64() throws(DecodeError) -> Int64 {
        try reader.readEncapsulated(in: value) { (inner) throws(DecodeError) -> Int64 in
            try inner.readInt64()
        }
    }

    /// An INTEGER 0/1 flag (1713, 1719).
    func flag() throws(DecodeError) -> Bool {
        try int64() != 0
    }

    /// A date string (`2020-07-14T19:36:40Z`, Xcode's `+0100` offsets, fractions); nil when empty.
    func date() throws(DecodeError) -> Timestamp? {
        try reader.readEncapsulated(in: value) { (inner) throws(DecodeError) -> Timestamp? in
            let element = try inner.readElement()
            let octets = try inner.stringOctets(element)
            guard !octets.isEmpty else { return nil }
            guard let timestamp = Timestamp.parse(bytes: UnsafeRawBufferPointer(rebasing: octets)) else {
                throw DecodeError(
                    "bad-date", "'\(String(decoding: octets.prefix(40), as: UTF8.self))' is not a date",
                    at: element.contentStart)
            }
            return timestamp
        }
    }

    /// The value's octets as lowercase hex: opaque bytes.
    func hex() throws(DecodeError) -> JSONValue {
        guard value.tag == .octetString else { return .string(Self.hex(try reader.octets(of: value).bytes)) }
        return .string(Self.hex(reader.content(of: value)))
    }

    /// An attribute we do not know, as hex of its raw octets — except an empty string,
    /// which like every empty string in a receipt means absent (half of an entry's unknown
    /// attributes are; skipping them keeps decoding fast).
    func unknown() throws(DecodeError) -> (key: String, value: JSONValue)? {
        if value.tag == .octetString {
            let octets = reader.content(of: value)
            let start = octets.startIndex
            if octets.count == 2, octets[start + 1] == 0x00, octets[start] == 0x16 || octets[start] == 0x0C {
                return nil
            }
            // INTEGER 0, the other common shape, shares one value instead of allocating one.
            if octets.count == 3, octets[start] == 0x02, octets[start + 1] == 0x01, octets[start + 2] == 0x00 {
                return (Self.unknownKey(type), Self.integerZero)
            }
        }
        return (Self.unknownKey(type), try hex())
    }

    private static let integerZero = JSONValue.string("020100")

    /// Runs `body` over the SET inside a type-17 value.
    func readSet<T>(_ body: (inout ASN1Reader) throws(DecodeError) -> T) throws(DecodeError) -> T {
        try reader.readEncapsulated(in: value) { (inner) throws(DecodeError) -> T in
            guard try inner.peekTag() == .set else {
                throw DecodeError("bad-attribute", "an in-app purchase value must be a SET", at: inner.position)
            }
            return try inner.readConstructed(.set, body)
        }
    }

    /// For undocumented attributes: the decoded value when it has the expected shape, else
    /// the raw octets under `attr_<type>` — a changed encoding shows instead of failing.
    func extra(_ key: String, _ decode: (AppReceiptAttribute) throws(DecodeError) -> JSONValue?) throws(DecodeError)
        -> (key: String, value: JSONValue)?
    {
        do throws(DecodeError) {
            return try decode(self).map { (key, $0) }
        } catch {
            return try unknown()
        }
    }

    func extraNumber() throws(DecodeError) -> JSONValue? { .number(String(try int64())) }
    func extraString() throws(DecodeError) -> JSONValue? { try string().map { .string($0) } }
    func extraDate() throws(DecodeError) -> JSONValue? { try date().map { .string($0.iso8601) } }
    func extraFlag() throws(DecodeError) -> JSONValue? { try flag() ? Self.jsonTrue : Self.jsonFalse }

    private static let jsonTrue = JSONValue.bool(true)
    private static let jsonFalse = JSONValue.bool(false)

    /// `attr_<type>`, the key an attribute we do not know is kept under.
    static func unknownKey(_ type: Int64) -> String {
        guard type >= 0, type < precomputedKeys.count else { return "attr_\(type)" }
        return precomputedKeys[Int(type)]
    }

    /// Made once: interpolating a key per attribute showed up in profiles.
    private static let precomputedKeys: [String] = (0..<2048).map { "attr_\($0)" }

    static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        // Written in place: short values stay small strings, with no buffer to allocate.
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for byte in bytes {
                out[i] = hexDigit(byte >> 4)
                out[i + 1] = hexDigit(byte & 0x0F)
                i += 2
            }
            return i
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }
}
