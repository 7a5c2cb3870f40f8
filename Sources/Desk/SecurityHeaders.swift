import HTTPMessages

/// The headers every desk response carries (CONTRACT §14; OWASP ASVS V14.4): no script or
/// style but the desk's own files, no framing, no sniffing, no referrer to other sites, and
/// nothing kept in a shared cache (every page is one user's).
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func added(to response: HTTPResponse) -> HTTPResponse {
        var r = response
        r.setHeader("Content-Security-Policy", contentSecurityPolicy)
        r.setHeader("X-Content-Type-Options", "nosniff")
        r.setHeader("X-Frame-Options", "DENY")
        r.setHeader("Referrer-Policy", "same-origin")
        r.setHeader("Cross-Origin-Opener-Policy", "same-origin")
        if r.header("Cache-Control") == nil { r.setHeader("Cache-Control", "no-store") }
        return r
    }
}
