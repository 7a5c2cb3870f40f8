/// The outcome of verifying a certificate chain: trusted, or why not, in words.
public struct ChainVerdict: Sendable {
    public enum Outcome: Sendable, Equatable {
        case trusted
        /// No path to a configured anchor (unknown root, self-signed leaf, missing intermediate).
        case untrustedRoot
        case expired
        case notYetValid
        /// Any other rejection, by OpenSSL's `X509_V_ERR_*` code.
        case rejected(code: Int32)
    }

    public var outcome: Outcome
    /// `trusted`, `untrusted root`, `certificate has expired`, `certificate is not yet valid`,
    /// or OpenSSL's own text for other rejections.
    public var reason: String
    /// The chain OpenSSL built, leaf first, ending at the anchor when trusted
    /// (as far as it got when not).
    public var chain: [X509Certificate]
    /// The certificate the rejection is about (nil when trusted or unknown).
    public var failingCertificate: X509Certificate?

    public var isTrusted: Bool { outcome == .trusted }
}
