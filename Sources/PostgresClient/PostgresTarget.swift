import CLibPQ

/// Which server and database a libpq URI names, for messages: never its password.
public struct PostgresTarget: Sendable, CustomStringConvertible {
    public var host: String
    public var port: String
    public var database: String
    public var user: String

    /// `postgres://user@host:port/database`
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// What libpq would connect to: the URI's values, else libpq's defaults (environment,
    /// then built-in). A URI libpq cannot read gives "?" for each part.
    public init(uri: String) {
        var parsed: [String: String] = [:]
        if let options = PQconninfoParse(uri, nil) {
            parsed = PostgresTarget.values(options)
            PQconninfoFree(options)
        }
        var defaults: [String: String] = [:]
        if let options = PQconndefaults() {
            defaults = PostgresTarget.values(options)
            PQconninfoFree(options)
        }
        func value(_ key: String) -> String? { parsed[key] ?? defaults[key] }
        user = value("user") ?? "?"
        host = value("host") ?? value("hostaddr") ?? "localhost"
        port = value("port") ?? "5432"
        database = value("dbname") ?? user
    }

    /// The target of a URI that libpq can read; else libpq's reason (passwords removed), so
    /// a mistyped URI is refused before anything tries to connect.
    public init(validating uri: String) throws(PostgresError) {
        var said: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &said) else {
            var reason = said.map { String(cString: $0) } ?? "libpq is out of memory"
            PQfreemem(said)
            while let last = reason.last, last.isWhitespace { reason.removeLast() }
            throw PostgresError("libpq cannot read the URI: \(Secrets(uri: uri, environment: [:]).redact(reason))")
        }
        PQconninfoFree(options)
        self.init(uri: uri)
    }

    init(host: String, port: String, database: String, user: String) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
    }

    /// The options that have a value, by keyword. The array ends with a NULL keyword.
    private static func values(_ options: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
        var out: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, value.pointee != 0 {
                out[String(cString: keyword)] = String(cString: value)
            }
            option += 1
        }
        return out
    }
}

/// The passwords a URI or the environment could hand libpq, as written and percent-decoded:
/// libpq echoes parts of a URI it cannot read, so every message is cleaned of them.
struct Secrets {
    private var values: [String] = []

    init(uri: String, environment: [String: String]) {
        var found: [String] = []
        if let password = environment["PGPASSWORD"] { found.append(password) }
        // postgres://user:PASSWORD@host/...
        if let scheme = uri.range(of: "://") {
            let rest = uri[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                found.append(String(authority[authority.index(after: colon)..<at]))
            }
        }
        // ?password=… in a URI, password=… in a key/value string.
        var search = uri[...]
        while let key = search.range(of: "password=") {
            let value = search[key.upperBound...].prefix { $0 != "&" && $0 != " " }
            found.append(String(value))
            search = search[key.upperBound...]
        }
        for raw in found where !raw.isEmpty {
            values.append(raw)
            if let decoded = Secrets.percentDecoded(raw), decoded != raw, !decoded.isEmpty { values.append(decoded) }
        }
        // Longest first: a password that contains another is removed whole.
        values.sort { $0.count > $1.count }
    }

    func redact(_ text: String) -> String {
        var out = text
        for secret in values { out = out.replacingAll(secret, with: "***") }
        return out
    }

    private static func percentDecoded(_ s: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = s.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let hex = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(hex)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = self[...]
        while let found = rest.range(of: target) {
            out += rest[..<found.lowerBound]
            out += replacement
            rest = rest[found.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    /// The first occurrence of `target`, compared by UTF-8 bytes (no Foundation here).
    fileprivate func range(of target: String) -> Range<Index>? {
        let needle = Array(target.utf8)
        guard let first = needle.first else { return nil }
        var start = startIndex
        while let i = self[start...].utf8.firstIndex(of: first) {
            if self[i...].utf8.starts(with: needle) {
                let end = utf8.index(i, offsetBy: needle.count)
                return i..<end
            }
            start = utf8.index(after: i)
        }
        return nil
    }
}

extension String {
    fileprivate func range(of target: String) -> Range<Index>? { self[...].range(of: target) }
}
