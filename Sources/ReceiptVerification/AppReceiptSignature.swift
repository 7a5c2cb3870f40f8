import IAPBasics
import ReceiptFormats
import StoreCrypto

/// Apple app receipts (formats.md §1.1, §1.6; openssl-notes.md): a PKCS#7 SignedData whose
/// single SignerInfo names its certificate by issuer and serial number among the carried
/// ones, and signs the eContent octets directly, RSA PKCS#1 v1.5 with SHA-1 or SHA-256.
/// The signer's chain must reach our anchors at the receipt's creation date (attribute 12),
/// leaf marked 1.2.840.113635.100.6.11.1, intermediate 1.2.840.113635.100.6.2.1.
///
/// Signed attributes are refused: App Store and Xcode receipts never carry them, so a
/// receipt that does was not made by Apple, and accepting them would add a second
/// signed structure (content-type and message-digest checks) for no genuine input.
enum AppReceiptSignature {
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    /// Signature algorithms that name their digest, which must then be the SignerInfo's.
    static let rsaWithDigest: [String: DigestAlgorithm] = [
        "1.2.840.113549.1.1.5": .sha1,
        "1.2.840.113549.1.1.11": .sha256,
    ]

    static func verify(
        _ signed: PKCS7Signed, createdAt creationDate: Timestamp?,
        chains: AppleChains
    ) -> SignatureStatus {
        guard let creationDate else {
            return SignatureStatus(.invalid, "no creation date to verify at")
        }
        guard signed.signedAttributes == nil else {
            return SignatureStatus(.invalid, "signed attributes are not supported (Apple receipts carry none)")
        }
        guard let digest = DigestAlgorithm(oid: signed.digestAlgorithm) else {
            return SignatureStatus(.invalid, "unsupported digest algorithm \(signed.digestAlgorithm)")
        }
        if signed.signatureAlgorithm != rsaEncryption {
            guard let named = rsaWithDigest[signed.signatureAlgorithm] else {
                return SignatureStatus(.invalid, "unsupported signature algorithm \(signed.signatureAlgorithm)")
            }
            guard named == digest else {
                let reason = "signature algorithm \(signed.signatureAlgorithm) contradicts digest \(digest.rawValue)"
                return SignatureStatus(.invalid, reason)
            }
        }
        let certificates: [X509Certificate]
        do {
            certificates = try chains.certificates(ders: signed.certificates)
        } catch {
            return SignatureStatus(.invalid, "unreadable certificate in the receipt: \(error.reason)")
        }
        guard
            let signerIndex = certificates.firstIndex(where: {
                $0.matches(issuerNameDER: signed.signerIssuer, serialNumber: signed.signerSerial)
            })
        else {
            return SignatureStatus(.invalid, "the signer's certificate is not among the receipt's certificates")
        }
        var intermediates = certificates
        let signer = intermediates.remove(at: signerIndex)
        switch chains.check(leaf: signer, intermediates: intermediates, policy: .receiptSigning, at: creationDate) {
        case .refused(let reason):
            return SignatureStatus(.invalid, reason)
        case .trusted(let key):
            return SignatureCheck.status { () throws(CryptoError) in
                try key.verifyRSA(signature: signed.signature, over: signed.content, digest: digest)
            }
        }
    }
}
