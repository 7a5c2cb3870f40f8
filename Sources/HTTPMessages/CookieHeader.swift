/// The `Cookie` request header (RFC 6265 §4.2.1): `name=value` pairs joined by `;`.
///
/// Read as browsers write it, with some tolerance: spaces and tabs around a pair, its name
/// and its value are dropped, empty pieces (`a=1;;b=2`) skipped, and a piece without `=` is
/// a cookie with an empty name (RFC 6265bis §5.7: how a nameless cookie is sent). Values are
/// kept as sent (quotes included, nothing decoded). A control character anywhere is an error.
public enum CookieHeader {
    /// The cookies of every `Cookie` field's `values`, in order, at most `limits.maxCookies`.
    public static func parse(_ values: [String], limits: HTTPLimits) throws(HTTPRequestError) -> NamedValues {
        var cookies: [NamedValue] = []
        for value in values {
            // Cut at ASCII bytes only, so every piece of the UTF-8 text is UTF-8 again.
            let bytes = Array(value.utf8)
            if let bad = bytes.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                throw HTTPRequestError(.badCookie, "the Cookie header holds a control character", at: bad)
            }
            for piece in bytes.split(separator: UInt8(ascii: ";")) {
                let pair = trimmed(piece)
                if pair.isEmpty { continue }
                guard cookies.count < limits.maxCookies else {
                    throw HTTPRequestError(
                        .headersTooLarge, "more than \(limits.maxCookies) cookies", at: pair.startIndex)
                }
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    cookies.append(NamedValue(text(trimmed(pair[..<equals])), text(trimmed(pair[(equals + 1)...]))))
                } else {
                    cookies.append(NamedValue("", text(pair)))
                }
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

    /// A piece of valid UTF-8 cut at ASCII bytes: decoding it replaces nothing.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
