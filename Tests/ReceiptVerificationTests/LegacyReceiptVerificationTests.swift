import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import StoreCrypto
import Testing

@Suite("Apple iOS 6 transaction receipts")
struct LegacyReceiptVerificationTests {
    private func spec() throws -> LegacyReceiptBuilder.Spec {
        LegacyReceiptBuilder.Spec(
            bundleID: VerificationWorld.bundleID, productID: "com.example.game.coins", itemID: "521129812",
            transactionID: "1000000046178817", purchaseDate: try Make.time("2012-04-30T15:05:55Z"))
    }

    @Test("an iOS 6 receipt signed by the iTunes Store chain is valid at its purchase date")
    func valid() throws {
        let receipt = try Make.decode(
            LegacyReceiptBuilder.build(spec(), signedBy: VerificationWorld.ours().legacyReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .valid, "\(status.reason)")
    }

    @Test("an iOS 6 receipt without its signature is invalid, no signature, whether trust is configured or not")
    func withoutSignature() throws {
        let receipt = try Make.decode(LegacyReceiptBuilder.withoutSignature(spec()))
        #expect(receipt.purchases.first?.transactionID == "1000000046178817")
        #expect(try VerificationWorld.verifier().status(of: receipt) == SignatureStatus(.invalid, "no signature"))
        #expect(ReceiptVerifier().status(of: receipt) == SignatureStatus(.invalid, "no signature"))
    }

    @Test("an iOS 6 receipt whose purchase-info changed after signing is invalid, whatever byte changed")
    func tampered() throws {
        let receipt = try Make.decode(
            LegacyReceiptBuilder.build(spec(), signedBy: VerificationWorld.ours().legacyReceiptSigner))
        guard case .legacy(let signed) = receipt.signed else {
            Issue.record("not an iOS 6 receipt: \(receipt.signed)")
            return
        }
        let verifier = try VerificationWorld.verifier()
        for index in signed.signedData.indices {
            var tampered = receipt
            tampered.signed = .legacy(
                LegacySigned(
                    signedData: Make.flipping(signed.signedData, at: index),
                    signature: signed.signature, certificate: signed.certificate))
            let status = verifier.status(of: tampered)
            #expect(
                status == SignatureStatus(.invalid, "bad signature"), "purchase-info byte \(index) changed unnoticed")
        }
    }

    @Test("an iOS 6 receipt signed by a leaf the iTunes Store CA issued without the iOS 6 marker is invalid")
    func unmarkedLeaf() throws {
        let pki = try VerificationWorld.ours()
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Test Unmarked Purchase Signer"),
            serialNumber: 0x77,
            notBefore: try Make.time("2010-01-01T00:00:00Z"),
            notAfter: try Make.time("2030-01-01T00:00:00Z"), isCertificateAuthority: false)
        builder.digest = .sha1
        let leaf = try builder.issued(
            for: pki.keys.legacyReceiptSigning.publicKey(), by: pki.iTunesStoreCA,
            issuerKey: pki.keys.iTunesStoreCA)
        let key = pki.keys.legacyReceiptSigning
        let identity = SigningIdentity(certificates: [leaf.der], digestAlgorithmOID: DigestAlgorithm.sha1.oid) { data in
            try key.signRSA(data, digest: .sha1)
        }
        let receipt = try Make.decode(LegacyReceiptBuilder.build(spec(), signedBy: identity))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status == SignatureStatus(.invalid, "leaf lacks iOS 6 receipt-signing OID"))
    }

    @Test("an iOS 6 receipt signed by an App Store receipt leaf does not reach the iTunes Store CA: untrusted root")
    func appStoreLeaf() throws {
        let receipt = try Make.decode(
            LegacyReceiptBuilder.build(spec(), signedBy: VerificationWorld.ours().appReceiptSignerSHA1))
        #expect(try VerificationWorld.verifier().status(of: receipt) == SignatureStatus(.invalid, "untrusted root"))
    }
}
