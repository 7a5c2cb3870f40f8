import IAPBasics
import ReceiptFormats
import StoreCrypto

/// App Store JWS (formats.md §4.1–4.2): header `alg` ES256, `x5c` exactly leaf,
/// intermediate, root; the raw 64-byte `r ‖ s` signature over the ASCII `header.payload`
/// with the leaf's key; the chain to our anchors at `signedDate`, leaf marked
/// 1.2.840.113635.100.6.11.1 and intermediate 1.2.840.113635.100.6.2.1. The root `x5c`
/// carries is only a hint: the anchor must be ours.
enum JWSSignature {
    static let expectedChainLength = 3

    static func verify(_ jws: JWSSigned, chains: AppleChains) -> SignatureStatus {
        guard jws.algorithm == "ES256" else {
            return SignatureStatus(.invalid, "JWS alg \(jws.algorithm.map { "\"\($0)\"" } ?? "missing") is not ES256")
        }
        guard jws.certificates.count == expectedChainLength else {
            let count = jws.certificates.count
            let noun = count == 1 ? "certificate" : "certificates"
            return SignatureStatus(.invalid, "x5c holds \(count) \(noun), not \(expectedChainLength)")
        }
        guard let signedDate = jws.signedDate else {
            return SignatureStatus(.invalid, "no signedDate to verify at")
        }
        let certificates: [X509Certificate]
        do {
            certificates = try chains.certificates(ders: jws.certificates)
        } catch {
            return SignatureStatus(.invalid, "unreadable x5c certificate: \(error.reason)")
        }
        guard let leaf = certificates.first else {
            return SignatureStatus(.invalid, "x5c holds no certificate")
        }
        let intermediates = Array(certificates.dropFirst())
        switch chains.check(leaf: leaf, intermediates: intermediates, policy: .receiptSigning, at: signedDate) {
        case .refused(let reason):
            return SignatureStatus(.invalid, reason)
        case .trusted(let key):
            return SignatureCheck.status { () throws(CryptoError) in
                try key.verifyES256(signature: jws.signature, over: jws.header, then: jws.afterHeader)
            }
        }
    }
}
