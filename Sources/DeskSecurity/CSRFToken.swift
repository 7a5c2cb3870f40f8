/// The synchronizer token the desk keeps with each session and every POST must carry
/// (CONTRACT §14, OWASP CSRF Prevention).
public enum CSRFToken {
    /// A new token for a new session: a `SecretToken`, independent of the session id.
    public static func make() -> String { SecretToken.make() }

    /// Whether the token a request sent is the session's, compared in constant time. A missing
    /// or empty token never matches.
    public static func matches(sent: String?, kept: String) -> Bool {
        guard let sent, !sent.isEmpty else { return false }
        return ConstantTime.equal(sent, kept)
    }
}
