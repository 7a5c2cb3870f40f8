extension WebDriver {
    /// A cookie as the browser holds it (W3C WebDriver §14.1).
    public struct Cookie {
        public var name: String
        public var value: String
        public var path: String?
        public var domain: String?
        public var secure: Bool
        public var httpOnly: Bool
        /// `Strict`, `Lax` or `None`, as the browser reports it.
        public var sameSite: String?
        /// Seconds since 1970 UTC; nil for a session cookie.
        public var expiry: Int?

        public init(
            name: String, value: String, path: String? = nil, domain: String? = nil, secure: Bool = false,
            httpOnly: Bool = false, sameSite: String? = nil, expiry: Int? = nil
        ) {
            self.name = name
            self.value = value
            self.path = path
            self.domain = domain
            self.secure = secure
            self.httpOnly = httpOnly
            self.sameSite = sameSite
            self.expiry = expiry
        }

        init?(_ value: Any) {
            guard let fields = value as? [String: Any], let name = fields["name"] as? String,
                let value = fields["value"] as? String
            else { return nil }
            self.init(
                name: name, value: value, path: fields["path"] as? String, domain: fields["domain"] as? String,
                secure: fields["secure"] as? Bool == true, httpOnly: fields["httpOnly"] as? Bool == true,
                sameSite: fields["sameSite"] as? String, expiry: fields["expiry"] as? Int)
        }

        var json: [String: Any] {
            var fields: [String: Any] = ["name": name, "value": value, "secure": secure, "httpOnly": httpOnly]
            if let path { fields["path"] = path }
            if let domain { fields["domain"] = domain }
            if let sameSite { fields["sameSite"] = sameSite }
            if let expiry { fields["expiry"] = expiry }
            return fields
        }
    }

    /// The cookies the current page's document can be sent (HttpOnly ones included).
    public var cookies: [Cookie] {
        get throws(WebDriverError) {
            let list = try command("GET", "/cookie", as: [Any].self)
            var cookies: [Cookie] = []
            for item in list {
                guard let cookie = Cookie(item) else { throw .badResponse("\(item) is no cookie") }
                cookies.append(cookie)
            }
            return cookies
        }
    }

    /// Sets a cookie for the current page's domain (a page of that domain must be open): e.g. a
    /// session id planted before a login, to see that the login does not keep it.
    public func addCookie(_ cookie: Cookie) throws(WebDriverError) {
        try command("POST", "/cookie", ["cookie": cookie.json])
    }

    public func deleteAllCookies() throws(WebDriverError) {
        try command("DELETE", "/cookie")
    }
}
