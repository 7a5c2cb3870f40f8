/// Values read out of a desk's answer by plain text search, as the desk's tests and its
/// benchmark need them: the first match wins and no escape is undone, so they suit the
/// desk's own ids and tokens, not arbitrary text. Not an HTML or JSON parser.
public enum ResponseFields {
    /// The value of the hidden form field `name` (`csrf`), quoted or not as the page wrote it.
    public static func hidden(_ name: String, in html: String) -> String? {
        for pattern in ["name=\"\(name)\" value=\"", "name=\(name) value=\""] {
            if let r = html.range(of: pattern) { return String(html[r.upperBound...].prefix { $0 != "\"" }) }
        }
        return nil
    }

    /// The string value of `"key":"…"` in a JSON body.
    public static func jsonString(_ key: String, in text: String) -> String? {
        guard let r = text.range(of: "\"\(key)\":\"") else { return nil }
        return String(text[r.upperBound...].prefix { $0 != "\"" })
    }

    /// The integer value of `"key":123` in a JSON body.
    public static func jsonNumber(_ key: String, in text: String) -> Int? {
        guard let r = text.range(of: "\"\(key)\":") else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }
}
