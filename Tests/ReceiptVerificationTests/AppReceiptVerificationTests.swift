import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

@Suite("Apple app receipts (PKCS#7)")
struct AppReceiptVerificationTests {
    @Test("a receipt signed today (SHA-256) by Apple's receipt-signing chain is valid")
    func validSHA256() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .valid, "\(status.reason)")
    }

    @Test("an older receipt signed with SHA-1 is valid")
    func validSHA1() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2019-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSignerSHA1))
        #expect(try VerificationWorld.verifier().status(of: receipt).verdict == .valid)
    }

    @Test("a receipt whose intermediate expired after it was made is still valid at its creation date")
    func intermediateExpiredSince() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2014-03-01T00:00:00Z",
                signedBy: VerificationWorld.expiring().appReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .valid, "\(status.reason)")
    }

    @Test("a receipt made after its signing certificate expired is invalid: expired at signing time")
    func leafExpiredBeforeSigning() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2015-06-01T00:00:00Z",
                signedBy: VerificationWorld.expiring().appReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason.hasPrefix("expired at signing time"), "\(status.reason)")
        #expect(status.reason.contains("Receipt Signing"), "\(status.reason)")
    }

    @Test("a receipt chaining to a forger's root with Apple's names is invalid: untrusted root")
    func untrustedRoot() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.forger().appReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason == "untrusted root")
    }

    @Test(
        "a receipt signed by a developer certificate under the real WWDR is invalid: leaf lacks the receipt-signing OID"
    )
    func developerLeaf() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().developerReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason == "leaf lacks receipt-signing OID")
    }

    @Test("an Xcode StoreKit Testing receipt is invalid: untrusted root")
    func xcodeReceipt() throws {
        var spec = try Make.appReceiptSpec(created: "2024-06-01T09:00:00Z", environment: "Xcode")
        spec.encoding = .xcodeBER
        spec.dateStyle = .offset(minutes: 60)
        spec.appItemID = 0
        let receipt = try Make.decode(
            AppReceiptBuilder.build(spec, signedBy: VerificationWorld.ours().xcodeReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason.hasPrefix("untrusted root"), "\(status.reason)")
        #expect(status.reason.contains("Xcode"), "\(status.reason)")
    }

    @Test("an Xcode-signed receipt that claims Production is invalid: untrusted self-signed root")
    func xcodeSignedClaimingProduction() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().xcodeReceiptSigner))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason == "untrusted root: self-signed certificate \"StoreKit Testing in Xcode\"")
    }

    @Test("a receipt whose expiry was rewritten in its bytes is invalid: bad signature")
    func rewrittenExpiry() throws {
        let genuine = try Make.appReceipt(
            created: "2024-06-01T10:00:00Z", signedBy: VerificationWorld.ours().appReceiptSigner)
        let forged = try #require(
            replacing(
                Array("2020-05-01T00:00:00Z".utf8), with: Array("2029-05-01T00:00:00Z".utf8),
                in: genuine))
        let receipt = try Make.decode(forged)
        let subscription = receipt.purchases.first { $0.transactionID == "1000" }
        #expect(subscription?.expiresDate == (try Make.time("2029-05-01T00:00:00Z")))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status.verdict == .invalid)
        #expect(status.reason == "bad signature")
    }

    @Test("a changed byte anywhere in the signed content is caught")
    func everyContentByte() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSigner))
        guard case .pkcs7(let signed) = receipt.signed else {
            Issue.record("not PKCS#7: \(receipt.signed)")
            return
        }
        let verifier = try VerificationWorld.verifier()
        for index in signed.content.indices {
            var tampered = receipt
            var changed = signed
            changed.content = Make.flipping(signed.content, at: index)
            tampered.signed = .pkcs7(changed)
            #expect(verifier.status(of: tampered).verdict == .invalid, "content byte \(index) changed unnoticed")
        }
    }

    @Test("a receipt without a creation date cannot be checked: invalid")
    func noCreationDate() throws {
        var receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSigner))
        receipt.creationDate = nil
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status == SignatureStatus(.invalid, "no creation date to verify at"))
    }

    @Test("a receipt whose SignerInfo names a certificate it does not carry is invalid")
    func signerNotCarried() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSigner))
        guard case .pkcs7(var signed) = receipt.signed else {
            Issue.record("not PKCS#7")
            return
        }
        signed.certificates.removeFirst()
        var tampered = receipt
        tampered.signed = .pkcs7(signed)
        let status = try VerificationWorld.verifier().status(of: tampered)
        #expect(status.verdict == .invalid)
        #expect(status.reason.contains("not among the receipt's certificates"))
    }

    @Test("without Apple anchors, app receipts stay unchecked")
    func noAnchors() throws {
        let receipt = try Make.decode(
            Make.appReceipt(
                created: "2024-06-01T10:00:00Z",
                signedBy: VerificationWorld.ours().appReceiptSigner))
        let verifier = try ReceiptVerifier(appleAnchors: [], googleKeys: [:])
        #expect(verifier.status(of: receipt) == SignatureStatus(.unchecked, "no Apple trust anchors configured"))
        #expect(ReceiptVerifier().status(of: receipt).verdict == .unchecked)
    }

    /// `bytes` with the first occurrence of `old` replaced by `new` (same length).
    private func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8]? {
        guard old.count == new.count, bytes.count >= old.count else { return nil }
        for start in 0...(bytes.count - old.count) where bytes[start..<(start + old.count)].elementsEqual(old) {
            var changed = bytes
            changed.replaceSubrange(start..<(start + old.count), with: new)
            return changed
        }
        return nil
    }
}
