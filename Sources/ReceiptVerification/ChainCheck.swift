import StoreCrypto

/// What checking a signer's chain decided: the signer's key can be believed, or why not.
enum ChainCheck: Sendable {
    /// The chain reaches one of our anchors at the verify time and carries Apple's
    /// markers; the signature is to be checked with this key.
    case trusted(signerKey: PublicKey)
    /// Why the chain is refused, in words that do not depend on the verify time.
    case refused(reason: String)

    /// From OpenSSL's verdict, then the marker policy.
    init(verdict: ChainVerdict, leaf: X509Certificate, policy: AppleMarkerPolicy) throws(CryptoError) {
        guard verdict.isTrusted else {
            self = .refused(reason: ChainCheck.reason(for: verdict, leaf: leaf))
            return
        }
        if let violation = policy.violation(in: verdict.chain) {
            self = .refused(reason: violation)
            return
        }
        self = .trusted(signerKey: try leaf.publicKey())
    }

    private static func reason(for verdict: ChainVerdict, leaf: X509Certificate) -> String {
        let failing = verdict.failingCertificate ?? leaf
        switch verdict.outcome {
        case .untrustedRoot:
            // Xcode's StoreKit Testing certificate signs its own receipts and JWS.
            return leaf.isSelfIssued ? "untrusted root: self-signed certificate \(name(of: leaf))" : "untrusted root"
        case .expired:
            return "expired at signing time: \(name(of: failing)) expired \(failing.notAfter.iso8601)"
        case .notYetValid:
            return "not yet valid at signing time: \(name(of: failing)) valid from \(failing.notBefore.iso8601)"
        case .trusted, .rejected:
            return "untrusted chain: \(verdict.reason)"
        }
    }

    private static func name(of certificate: X509Certificate) -> String {
        "\"\(certificate.subjectCommonName ?? certificate.subject)\""
    }
}
