import DeskSecurity
import HTTPMessages

/// CSRF (OWASP CSRF Prevention): the session's synchronizer token on every POST, and the
/// browser's own word on where the request came from, when it gives one.
enum CSRFCheck {
    /// The `Origin`, when sent, names the desk itself: the host and port the browser asked
    /// (`Host`), whichever scheme a TLS proxy in front changed. `Origin: null` (a sandboxed
    /// frame, a redirect from elsewhere) is not the desk. `Sec-Fetch-Site`, when sent, must
    /// say same-origin (or none: typed or bookmarked).
    static func sameOrigin(_ request: HTTPRequest) -> Bool {
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" { return false }
        guard let origin = request.header("origin") else { return true }
        guard let host = request.header("host"), !host.isEmpty, let authority = authority(ofOrigin: origin) else {
            return false
        }
        return authority.lowercased() == host.lowercased()
    }

    /// `scheme://host[:port]` → `host[:port]`; nil for anything else (`null`, a path, userinfo).
    static func authority(ofOrigin origin: String) -> String? {
        for scheme in ["http://", "https://"] where origin.lowercased().hasPrefix(scheme) {
            let rest = origin.dropFirst(scheme.count)
            guard !rest.isEmpty, !rest.contains(where: { "/?#@ ".contains($0) }) else { return nil }
            return String(rest)
        }
        return nil
    }

    static func matches(sent: String, kept: String) -> Bool {
        CSRFToken.matches(sent: sent, kept: kept)
    }
}
