import JSONText
import ReceiptFormats
import StoreCrypto

/// Checks a decoded receipt's signature and chain against the Rules directory's trust
/// (`trust/apple/` anchors, `trust/google/` keys), offline, and cross-checks a stored
/// verifyReceipt JSON against its own signed `latest_receipt`.
///
/// Safe to share between threads: caches are locked, OpenSSL objects only read.
public struct ReceiptVerifier: Sendable {
    private let apple: AppleChains?
    private let googleKeys: [String: PublicKey]

    /// No trust at all: signed material is `unchecked`, unsigned material `unsigned`.
    public init() {
        apple = nil
        googleKeys = [:]
    }

    /// From the Rules directory's files: `appleAnchorFiles` are `trust/apple/*.cer|.der|.crt`
    /// (DER) or `.pem` (one or more certificates); `googleKeyFiles` maps a package name to
    /// its `trust/google/<package>.pem|.pub`. A file that cannot be used throws, naming it.
    /// `cachesChains: false` parses every certificate and checks every chain each time
    /// (for benchmarks; the answers are the same).
    public init(
        appleAnchorFiles: [String], googleKeyFiles: [String: String],
        cachesChains: Bool = true
    ) throws(TrustFileError) {
        let anchors = try TrustFiles.appleAnchors(appleAnchorFiles)
        let keys = try TrustFiles.googleKeys(googleKeyFiles)
        do {
            try self.init(appleAnchors: anchors, googleKeys: keys, cachesChains: cachesChains)
        } catch {
            throw TrustFileError(
                path: appleAnchorFiles.joined(separator: ", "),
                reason: "cannot build a trust store: \(error.reason)")
        }
    }

    /// From anchors and keys already in memory (tests, benchmarks).
    public init(
        appleAnchors: [X509Certificate], googleKeys: [String: PublicKey],
        cachesChains: Bool = true
    ) throws(CryptoError) {
        apple = appleAnchors.isEmpty ? nil : try AppleChains(anchors: appleAnchors, caching: cachesChains)
        self.googleKeys = googleKeys
    }

    /// The receipt's signature status and, for a verifyReceipt JSON whose claims contradict
    /// its signed receipt (or whose `latest_receipt` is garbage), why it is forged; a forged
    /// JSON's status is `invalid` too.
    public func verify(_ receipt: Receipt) -> (status: SignatureStatus, forgery: String?) {
        switch receipt.signed {
        case .none:
            return (SignatureStatus(.unsigned, "the payload carries no signature"), nil)
        case .decodedJWSPayload:
            return (.decodedTransactionJSON, nil)
        case .pkcs7(let signed):
            let status = checkApple(receipt) { chains in
                AppReceiptSignature.verify(signed, createdAt: receipt.creationDate, chains: chains)
            }
            return (status, nil)
        case .legacy(let signed) where signed.signature == nil:
            return (.legacyWithoutSignature, nil)
        case .legacy(let signed):
            // An iOS 6 receipt's creation date is its purchase date.
            let status = checkApple(receipt) { chains in
                LegacyReceiptSignature.verify(signed, purchasedAt: receipt.creationDate, chains: chains)
            }
            return (status, nil)
        case .jws(let outer, let nested):
            return (checkApple(receipt) { chains in verifyJWS(outer, nested: nested, chains: chains) }, nil)
        case .google(let originalJSON, let signature, let objectKey):
            let status = GooglePurchaseSignature.verify(
                originalJSON: originalJSON, signature: signature,
                packageName: receipt.appID, keys: googleKeys,
                storedAsObjectIn: objectKey)
            return (status, nil)
        case .verifyReceipt(let embedded):
            return verifyClaims(receipt, embedded: embedded?.receipt)
        }
    }

    /// Apple material: `unchecked` without anchors; Xcode and LocalTesting proofs are signed
    /// by a local StoreKit Testing certificate and never verify against our anchors.
    private func checkApple(_ receipt: Receipt, _ check: (AppleChains) -> SignatureStatus) -> SignatureStatus {
        guard let apple else {
            return SignatureStatus(.unchecked, "no Apple trust anchors configured")
        }
        if let environment = receipt.environment, ["Xcode", "LocalTesting"].contains(environment) {
            let reason = "untrusted root: \(environment) proofs are signed by a local StoreKit Testing certificate"
            return SignatureStatus(.invalid, reason)
        }
        return check(apple)
    }

    /// A notification verifies only when it and every JWS its `data` nests do, each at its
    /// own signedDate; the first that fails is named.
    private func verifyJWS(_ outer: JWSSigned, nested: [NestedJWS], chains: AppleChains) -> SignatureStatus {
        let status = JWSSignature.verify(outer, chains: chains)
        guard status.verdict == .valid else { return status }
        for inner in nested {
            let check = JWSSignature.verify(inner.signed, chains: chains)
            guard check.verdict == .valid else {
                return SignatureStatus(check.verdict, "\(inner.field.rawValue): \(check.reason)")
            }
        }
        return status
    }

    /// A verifyReceipt JSON is as good as its signed receipt, and only where it agrees with it.
    private func verifyClaims(_ claims: Receipt, embedded: Receipt?) -> (status: SignatureStatus, forgery: String?) {
        guard let embedded else {
            if let error = claims.extras.first(where: { $0.key == "latest_receipt_error" })?.value {
                let detail = error.object?["reason"]?.string ?? "unreadable"
                return (
                    SignatureStatus(.invalid, "forged: latest_receipt present but undecodable"),
                    "latest_receipt is present but undecodable (\(detail))"
                )
            }
            return (SignatureStatus(.unsigned, "verifyReceipt JSON without an embedded receipt is only a claim"), nil)
        }
        let signed = verify(embedded).status
        guard signed.verdict == .valid else {
            return (SignatureStatus(signed.verdict, "latest_receipt: \(signed.reason)"), nil)
        }
        if let contradiction = VerifyReceiptCrossCheck.contradiction(claims: claims, signed: embedded) {
            return (SignatureStatus(.invalid, "forged: JSON contradicts its signed receipt"), contradiction)
        }
        return (SignatureStatus(.valid, "latest_receipt verified and the JSON agrees with it"), nil)
    }
}
