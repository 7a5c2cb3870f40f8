/// A link inside the desk: a path of fixed and data segments and a query, each data part
/// percent-encoded (everything but RFC 3986's unreserved characters), so an order id holding
/// `/`, `?`, `#`, quotes or `javascript:` stays one inert segment under `/orders/`.
struct DeskURL: Equatable {
    /// The text of the URL; the writer still escapes it as an attribute value.
    let text: String

    private init(text: String) {
        self.text = text
    }

    /// A fixed path of the desk (`/queue`, `/login`).
    init(_ path: StaticString, query: [(String, String?)] = []) {
        self.init(text: path.description + DeskURL.query(query))
    }

    static func order(_ id: String) -> DeskURL {
        DeskURL(text: "/orders/" + encode(id))
    }

    /// A POST target under an order: `/orders/{id}/claim`, `…/release`, `…/notes`, `…/verdict`.
    static func order(_ id: String, _ action: StaticString) -> DeskURL {
        DeskURL(text: "/orders/" + encode(id) + "/" + action.description)
    }

    static func asset(_ name: StaticString) -> DeskURL {
        DeskURL(text: "/assets/" + name.description)
    }

    /// `?k=v&…` of the pairs whose value is there (nil and empty values are left out).
    private static func query(_ pairs: [(String, String?)]) -> String {
        let kept = pairs.compactMap { key, value in value.flatMap { $0.isEmpty ? nil : encode(key) + "=" + encode($0) }
        }
        return kept.isEmpty ? "" : "?" + kept.joined(separator: "&")
    }

    static func encode(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out.unicodeScalars.append(hexDigit(byte >> 4))
                out.unicodeScalars.append(hexDigit(byte & 0x0F))
            }
        }
        return out
    }

    private static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    private static func hexDigit(_ n: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "A") + n - 10)
    }
}
