/// application/x-www-form-urlencoded, the format of query strings and of HTML forms' bodies
/// (WHATWG URL §5.1): `name=value` pairs joined by `&`; in both `+` is a space and `%XX` a
/// byte. Empty pieces (`a=1&&b=2`) are skipped; a piece without `=` is a name with an empty
/// value; repeated names are kept in order. Unlike WHATWG's parser, a bad `%` escape or a
/// value that is not UTF-8 once decoded is an error, never replaced.
public enum FormURLEncoding {
    /// The pairs of `bytes` (its indices are offsets in the whole input, for errors).
    public static func parse(
        _ bytes: ArraySlice<UInt8>, maxPairs: Int, _ code: HTTPRequestError.Code, _ what: String
    ) throws(HTTPRequestError) -> NamedValues {
        var pairs: [NamedValue] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if end > start {
                guard pairs.count < maxPairs else {
                    throw HTTPRequestError(code, "\(what) has more than \(maxPairs) pairs", at: start)
                }
                pairs.append(try pair(bytes[start..<end], code, what))
            }
            start = end + 1
        }
        return NamedValues(pairs)
    }

    public static func parse(_ text: String, maxPairs: Int = 1_000) throws(HTTPRequestError) -> NamedValues {
        try parse(Array(text.utf8)[...], maxPairs: maxPairs, .badForm, "the form")
    }

    static func pair(_ piece: ArraySlice<UInt8>, _ code: HTTPRequestError.Code, _ what: String)
        throws(HTTPRequestError) -> NamedValue
    {
        let equals = piece.firstIndex(of: UInt8(ascii: "=")) ?? piece.endIndex
        let valueStart = equals < piece.endIndex ? equals + 1 : piece.endIndex
        let name = try PercentEncoding.decode(piece[..<equals], plusIsSpace: true, code, "a name in \(what)")
        let value = try PercentEncoding.decode(piece[valueStart...], plusIsSpace: true, code, "a value in \(what)")
        return NamedValue(
            try PercentEncoding.text(name, code, "a name in \(what)", at: piece.startIndex),
            try PercentEncoding.text(value, code, "a value in \(what)", at: valueStart))
    }

    /// `pairs` as a query string or form body that `parse` reads back the same: every byte
    /// but RFC 3986's unreserved characters percent-encoded, a space as `+`.
    public static func encode(_ pairs: NamedValues) -> String {
        pairs.pairs.map { "\(encode(component: $0.name))=\(encode(component: $0.value))" }.joined(separator: "&")
    }

    static func encode(component: String) -> String {
        PercentEncoding.encode(component, keeping: PercentEncoding.isUnreserved, spaceAsPlus: true)
    }
}
