import COpenSSL
import IAPBasics

/// The anchors receipts must chain to (`Rules/trust/apple`), and chain verification at a
/// given time. Default system paths are never loaded: only these anchors are trusted.
///
/// `@unchecked Sendable`: the `X509_STORE` is filled in init and only read afterwards
/// (OpenSSL locks its own lookups); each verification uses its own `X509_STORE_CTX`.
public final class TrustStore: @unchecked Sendable {
    private let store: OpaquePointer
    public let anchors: [X509Certificate]

    public init(anchors: [X509Certificate]) throws(CryptoError) {
        guard let store = X509_STORE_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a trust store")
        }
        self.store = store
        self.anchors = anchors
        for anchor in anchors {
            guard X509_STORE_add_cert(store, anchor.handle) == 1 else {
                throw CryptoError.openSSL(.badCertificate, "cannot add anchor \(anchor.subject)")
            }
        }
    }

    deinit { X509_STORE_free(store) }

    /// Verifies `leaf` through `intermediates` (untrusted, e.g. the receipt's own
    /// certificates, in any order) to an anchor, with validity checked at `time`
    /// (the receipt's creation date: Apple's intermediates expire). An anchor may be an
    /// intermediate, such as the iTunes Store CA for iOS 6 receipts (partial chains allowed).
    /// Throws only when OpenSSL cannot set up the check.
    public func verify(
        leaf: X509Certificate, intermediates: [X509Certificate],
        at time: Timestamp
    ) throws(CryptoError) -> ChainVerdict {
        guard let context = X509_STORE_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a verification context")
        }
        defer { X509_STORE_CTX_free(context) }
        let untrusted = try CertificateStack(intermediates)
        guard X509_STORE_CTX_init(context, store, leaf.handle, untrusted.handle) == 1,
            let parameters = X509_STORE_CTX_get0_param(context)
        else {
            throw CryptoError.openSSL(.operationFailed, "cannot start chain verification")
        }
        guard let seconds = time_t(exactly: time.flooredEpochSeconds) else {
            throw CryptoError(.unsupported, "verify time \(time) does not fit OpenSSL's time_t")
        }
        X509_VERIFY_PARAM_set_time(parameters, seconds)
        guard X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot allow partial chains")
        }
        let verified = X509_verify_cert(context) == 1
        // Failures are reported through the context; the queue holds nothing of use.
        OpenSSLErrorQueue.clear()
        let known = [leaf] + intermediates + anchors
        let chain = CertificateStack.certificates(in: X509_STORE_CTX_get1_chain(context), matching: known)
        if verified {
            return ChainVerdict(outcome: .trusted, reason: "trusted", chain: chain, failingCertificate: nil)
        }
        let code = X509_STORE_CTX_get_error(context)
        let failing = X509_STORE_CTX_get_current_cert(context).flatMap { current in known.first { $0.handle == current }
        }
        let (outcome, reason) = TrustStore.describe(code)
        return ChainVerdict(outcome: outcome, reason: reason, chain: chain, failingCertificate: failing)
    }

    private static func describe(_ code: Int32) -> (ChainVerdict.Outcome, String) {
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return (.untrustedRoot, "untrusted root")
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return (.expired, "certificate has expired")
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return (.notYetValid, "certificate is not yet valid")
        default:
            let text =
                X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "verification error \(code)"
            return (.rejected(code: code), text)
        }
    }
}
