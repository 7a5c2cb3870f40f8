/// A `Content-Type` value (RFC 9110 §8.3.1): `type "/" subtype *( OWS ";" OWS parameter )`,
/// `parameter = token "=" ( token / quoted-string )`. Type, subtype and parameter names are
/// case-insensitive and kept lower-cased; a quoted value is unquoted (`\x` stands for `x`).
public struct MediaType: Sendable, Equatable {
    public var type: String
    public var subtype: String
    public var parameters: NamedValues

    /// `type/subtype`, what a check compares.
    public var essence: String { "\(type)/\(subtype)" }

    public init(parsing text: String) throws(HTTPRequestError) {
        var reader = TokenReader(Array(text.utf8))
        let type = reader.token()
        guard !type.isEmpty, reader.take(UInt8(ascii: "/")) else {
            throw HTTPRequestError(.unsupportedMediaType, "Content-Type is not type/subtype", at: reader.offset)
        }
        let subtype = reader.token()
        guard !subtype.isEmpty else {
            throw HTTPRequestError(.unsupportedMediaType, "Content-Type has no subtype", at: reader.offset)
        }
        var parameters: [NamedValue] = []
        while true {
            reader.skipSpace()
            if reader.atEnd { break }
            guard reader.take(UInt8(ascii: ";")) else {
                throw HTTPRequestError(
                    .unsupportedMediaType, "Content-Type has bytes after its type", at: reader.offset)
            }
            reader.skipSpace()
            if reader.atEnd { break }
            let name = reader.token()
            guard !name.isEmpty, reader.take(UInt8(ascii: "=")) else {
                throw HTTPRequestError(
                    .unsupportedMediaType, "a Content-Type parameter is not name=value", at: reader.offset)
            }
            guard let value = reader.quotedString() ?? Self.nonEmpty(reader.token()) else {
                throw HTTPRequestError(
                    .unsupportedMediaType, "a Content-Type parameter has no value", at: reader.offset)
            }
            parameters.append(NamedValue(name.lowercased(), value))
        }
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = NamedValues(parameters)
    }

    private static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }
}

/// Reads RFC 9110 tokens and quoted strings from the front of a header value.
struct TokenReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { offset >= bytes.count }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        offset += 1
        return true
    }

    mutating func skipSpace() {
        while let b = current, b == 0x20 || b == 0x09 { offset += 1 }
    }

    /// The longest run of tchar (RFC 9110 §5.6.2), ASCII only.
    mutating func token() -> String {
        let start = offset
        while let b = current, Self.isTokenByte(b) { offset += 1 }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// A quoted-string at the reader, unquoted; nil when there is none or it does not end.
    mutating func quotedString() -> String? {
        guard current == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        var i = offset + 1
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                offset = i + 1
                return String(validating: out, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { return nil }
                out.append(bytes[i + 1])
                i += 2
            } else {
                guard b == 0x09 || (b >= 0x20 && b != 0x7F) else { return nil }
                out.append(b)
                i += 1
            }
        }
        return nil
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenPunctuation.contains(b)
        }
    }

    private static let tokenPunctuation: [UInt8] = Array("!#$%&'*+-.^_`|~".utf8)
}
