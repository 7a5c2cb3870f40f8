import ReceiptFormats
import StoreCrypto

/// Google Play purchases (formats.md §5; openssl-notes.md): SHA1withRSA (PKCS#1 v1.5) over
/// the exact `originalJson` bytes, with the licensing key of the purchase's package
/// (`trust/google/<packageName>.pem|.pub`). Never re-serialised: the bytes as received.
/// When the payload held originalJson as a JSON object (`storedAsObjectIn`), the object's
/// bytes as they stand are checked: they verify when the server embedded the text verbatim,
/// and a failure says the signed bytes were re-serialised (the purchase may be genuine, but
/// nothing proves it any more).
enum GooglePurchaseSignature {
    static func verify(
        originalJSON: [UInt8], signature: [UInt8]?, packageName: String?,
        keys: [String: PublicKey], storedAsObjectIn objectKey: String? = nil
    ) -> SignatureStatus {
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
        var validReason = "signature verified with the key of \(packageName)"
        if let objectKey { validReason += " (\(objectKey) was stored as a JSON object, its bytes verbatim)" }
        let status = SignatureCheck.status(validReason: validReason) { () throws(CryptoError) in
            try key.verifyRSA(signature: signature, over: originalJSON, digest: .sha1)
        }
        guard let objectKey, status == SignatureStatus(.invalid, "bad signature") else { return status }
        return SignatureStatus(
            .invalid, "bad signature: \(objectKey) was stored as a JSON object whose bytes were re-serialized")
    }
}
