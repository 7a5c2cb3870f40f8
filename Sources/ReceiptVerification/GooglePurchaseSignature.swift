import ReceiptFormats
import StoreCrypto

/// Google Play purchases (formats.md §5; openssl-notes.md): SHA1withRSA (PKCS#1 v1.5) over
/// the exact `originalJson` bytes, with the licensing key of the purchase's package
/// (`trust/google/<packageName>.pem|.pub`). Never re-serialised: the bytes as received.
enum GooglePurchaseSignature {
    static func verify(originalJSON: [UInt8], signature: [UInt8]?, packageName: String?,
                       keys: [String: PublicKey]) -> SignatureStatus {
        guard let signature else {
            return SignatureStatus(.unsigned, "Google purchase without a signature")
        }
        guard !keys.isEmpty else {
            return SignatureStatus(.unchecked, "no Google keys configured")
        }
        guard let packageName else {
            // Keys exist: a purchase must say whose key checks it, or it would dodge the check.
            return SignatureStatus(.invalid, "Google purchase without a packageName: no key to check it with")
        }
        guard let key = keys[packageName] else {
            return SignatureStatus(.unchecked, "no Google key for package \(packageName)")
        }
        let validReason = "signature verified with the key of \(packageName)"
        return SignatureCheck.status(validReason: validReason) { () throws(CryptoError) in
            try key.verifyRSA(signature: signature, over: originalJSON, digest: .sha1)
        }
    }
}
