/// How far a receipt's signature was checked, as `decode` prints it and rules read it.
public struct SignatureStatus: Sendable, Equatable {
    public enum Verdict: String, Sendable {
        case valid, invalid, unsigned, unchecked
    }

    public var verdict: Verdict
    public var reason: String

    public init(_ verdict: Verdict, _ reason: String) {
        self.verdict = verdict
        self.reason = reason
    }

    /// An iOS 6 receipt that came without its `signature`: the format always has one.
    public static let legacyWithoutSignature = SignatureStatus(.invalid, "no signature")

    /// A JWS transaction's decoded JSON, stored without its JWS: only a claim.
    public static let decodedTransactionJSON = SignatureStatus(.unsigned, "decoded transaction JSON, no JWS")

    /// Before any trust is configured: unsigned material is still unsigned.
    public static func withoutTrust(_ receipt: Receipt) -> SignatureStatus {
        switch receipt.signed {
        case .none:
            return SignatureStatus(.unsigned, "the payload carries no signature")
        case .decodedJWSPayload:
            return .decodedTransactionJSON
        case .legacy(let signed) where signed.signature == nil:
            return .legacyWithoutSignature
        case .google(_, signature: nil, _):
            return SignatureStatus(.unsigned, "Google purchase without a signature")
        case .verifyReceipt(embedded: nil):
            // A latest_receipt that is there but unreadable is worse than none: a forger's dodge.
            if receipt.extras.contains(where: { $0.key == "latest_receipt_error" }) {
                return SignatureStatus(.invalid, "forged: latest_receipt is present but undecodable")
            }
            return SignatureStatus(.unsigned, "verifyReceipt JSON without an embedded receipt is only a claim")
        default:
            return SignatureStatus(.unchecked, "no trust configured for it")
        }
    }
}
