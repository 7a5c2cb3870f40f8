import ReceiptFormats
import StoreCrypto

/// The last step of every check: the signature itself, in `SignatureStatus` words.
enum SignatureCheck {
    /// `valid` (saying `validReason`) when `verify` says so; otherwise its reason, or why
    /// OpenSSL could not check.
    static func status(
        validReason: String = "signature and chain verified",
        _ verify: () throws(CryptoError) -> SignatureVerdict
    ) -> SignatureStatus {
        do {
            switch try verify() {
            case .valid: return SignatureStatus(.valid, validReason)
            case .invalid(let reason): return SignatureStatus(.invalid, reason)
            }
        } catch {
            return SignatureStatus(.invalid, "signature cannot be checked: \(error.reason)")
        }
    }
}
