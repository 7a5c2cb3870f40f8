import IAPBasics
import ReceiptFormats
import StoreCrypto

/// iOS 6 transaction receipts (formats.md §2; openssl-notes.md): the `signature` blob's
/// RSA PKCS#1 v1.5 SHA-1 signature over `0x02 ‖ purchase-info bytes`, with the leaf the
/// blob carries. The leaf (1.2.840.113635.100.6.5.1) must chain, at the purchase date, to
/// an anchor: the iTunes Store CA (1.2.840.113635.100.6.2.2) placed among ours, or the root
/// above it.
enum LegacyReceiptSignature {
    static func verify(
        _ signed: LegacySigned, purchasedAt purchaseDate: Timestamp?,
        chains: AppleChains
    ) -> SignatureStatus {
        guard let signature = signed.signature, let certificate = signed.certificate else {
            return .legacyWithoutSignature
        }
        guard let purchaseDate else {
            return SignatureStatus(.invalid, "no purchase date to verify at")
        }
        let leaf: X509Certificate
        do {
            guard let only = try chains.certificates(ders: [certificate]).first else {
                return SignatureStatus(.invalid, "the receipt carries no certificate")
            }
            leaf = only
        } catch {
            return SignatureStatus(.invalid, "unreadable certificate in the receipt: \(error.reason)")
        }
        switch chains.check(leaf: leaf, intermediates: [], policy: .legacyReceiptSigning, at: purchaseDate) {
        case .refused(let reason):
            return SignatureStatus(.invalid, reason)
        case .trusted(let key):
            return SignatureCheck.status { () throws(CryptoError) in
                try key.verifyRSA(signature: signature, over: signed.signedData, digest: .sha1)
            }
        }
    }
}
