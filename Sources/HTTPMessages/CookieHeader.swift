/// The `Cookie` request header (RFC 6265 §4.2.1): `name=value` pairs joined by `;`.
///
/// Read as browsers write it, with some tolerance: spaces and tabs around a pair, its name
/// and its value are dropped, empty pieces (`a=1;;b=2`) skipped, and a piece without `=` is
/// a cookie with an empty name (RFC 6265bis §5.7: how a nameless cookie is sent). Values are
/// kept as sent (quotes included, nothing decoded). A control character in a name or value
/// (a tab too, but around them) is an error.
public enum CookieHeader {
    /// The cookies of every `Cookie` field's `values`, in order, at most `limits.maxCookies`.
    public static func parse(_ values: [String], limits: HTTPLimits) throws(HTTPRequestError) -> NamedValues {
        var cookies: [NamedValue] = []
        for value in values {
            // Cut at ASCII bytes only, so every piece of the UTF-8 text is UTF-8 again.
            let bytes = Array(value.utf8)
            for piece in bytes.split(separator: UInt8(ascii: ";")) {
                let pair = trimmed(piece)
                if pair.isEmpty { continue }
                guard cookies.count < limits.maxCookies else {
                    throw HTTPRequestError(
                        .headersTooLarge, "more than \(limits.maxCookies) cookies", at: pair.startIndex)
                }
                let equals = pair.firstIndex(of: UInt8(ascii: "="))
                let name = equals.map { trimmed(pair[..<$0]) } ?? []
                let value = equals.map { trimmed(pair[($0 + 1)...]) } ?? pair
                cookies.append(NamedValue(try text(name), try text(value)))
            }
        }
        return NamedValues(cookies)
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var t = bytes
        while let b = t.first, b == 0x20 || b == 0x09 { t = t.dropFirst() }
        while let b = t.last, b == 0x20 || b == 0x09 { t = t.dropLast() }
        return t
    }

    /// A name or value as text; its indices are offsets in the header's value, for the error.
    static func text(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> String {
        if let bad = bytes.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw HTTPRequestError(.badCookie, "the Cookie header holds a control character", at: bad)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
