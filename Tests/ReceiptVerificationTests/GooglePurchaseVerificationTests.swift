import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

@Suite("Google Play purchases")
struct GooglePurchaseVerificationTests {
    @Test("a purchase signed with the package's Play key is valid, in every wrapper")
    func valid() throws {
        let pki = try VerificationWorld.ours()
        let verifier = try VerificationWorld.verifier()
        for wrapper in [GooglePurchaseBuilder.Wrapper.dataAndSignature, .base64DataAndSignature, .unity] {
            let payload = try GooglePurchaseBuilder.payload(
                Make.googlePurchase(), with: pki.googleSigner, wrapper: wrapper)
            let status = verifier.status(of: try Make.decode(payload))
            #expect(status.verdict == .valid, "\(wrapper): \(status.reason)")
        }
    }

    @Test("a purchase whose originalJson was edited is invalid: bad signature")
    func editedJSON() throws {
        let pki = try VerificationWorld.ours()
        let payload = try GooglePurchaseBuilder.payload(
            Make.googlePurchase(), with: pki.googleSigner, wrapper: .dataAndSignature)
        let edited = payload.replacingOccurrences(of: "coins100", with: "coins999")
        let receipt = try Make.decode(edited)
        #expect(receipt.purchases.first?.productID == "coins999")
        #expect(try VerificationWorld.verifier().status(of: receipt) == SignatureStatus(.invalid, "bad signature"))
    }

    @Test("a changed byte anywhere in originalJson is caught")
    func everyByte() throws {
        let pki = try VerificationWorld.ours()
        let receipt = try Make.decode(
            GooglePurchaseBuilder.payload(
                Make.googlePurchase(), with: pki.googleSigner,
                wrapper: .dataAndSignature))
        guard case .google(let originalJSON, let signature, _) = receipt.signed else {
            Issue.record("not a Google purchase: \(receipt.signed)")
            return
        }
        let verifier = try VerificationWorld.verifier()
        for index in originalJSON.indices {
            var tampered = receipt
            tampered.signed = .google(originalJSON: Make.flipping(originalJSON, at: index), signature: signature)
            #expect(verifier.status(of: tampered).verdict == .invalid, "originalJson byte \(index) changed unnoticed")
        }
    }

    @Test(
        "data stored as a JSON object verifies when its bytes are the signed text, in every wrapper",
        arguments: [GooglePurchaseBuilder.Wrapper.dataAndSignature, .base64DataAndSignature, .unity])
    func dataAsObjectVerbatim(_ wrapper: GooglePurchaseBuilder.Wrapper) throws {
        let pki = try VerificationWorld.ours()
        let original = try Make.googlePurchase().originalJSON
        let payload = try GooglePurchaseBuilder.payloadWithObject(
            originalJSON: original, signature: GooglePurchaseBuilder.signature(of: original, with: pki.googleSigner),
            wrapper: wrapper, form: .verbatim)
        let status = try VerificationWorld.verifier().status(of: Make.decode(payload))
        let key = wrapper == .unity ? "json" : "data"
        #expect(
            status
                == SignatureStatus(
                    .valid,
                    "signature verified with the key of com.example.game "
                        + "(\(key) was stored as a JSON object, its bytes verbatim)"))
    }

    @Test(
        "data stored as a JSON object that was written anew is invalid, and the reason says the signed bytes were re-serialized",
        arguments: [GooglePurchaseBuilder.Wrapper.dataAndSignature, .base64DataAndSignature, .unity])
    func dataAsObjectReserialized(_ wrapper: GooglePurchaseBuilder.Wrapper) throws {
        let pki = try VerificationWorld.ours()
        let original = try Make.googlePurchase().originalJSON
        let payload = try GooglePurchaseBuilder.payloadWithObject(
            originalJSON: original, signature: GooglePurchaseBuilder.signature(of: original, with: pki.googleSigner),
            wrapper: wrapper, form: .reserialized)
        let receipt = try Make.decode(payload)
        #expect(receipt.purchases.first?.transactionID == "GPA.1234-5678-9012-34567", "decoded all the same")
        let key = wrapper == .unity ? "json" : "data"
        #expect(
            try VerificationWorld.verifier().status(of: receipt)
                == SignatureStatus(
                    .invalid, "bad signature: \(key) was stored as a JSON object whose bytes were re-serialized"))
        #expect(ReceiptVerifier().status(of: receipt).verdict == .unchecked)
    }

    @Test("a purchase without a signature is unsigned")
    func unsigned() throws {
        let pki = try VerificationWorld.ours()
        let payload = try GooglePurchaseBuilder.payload(
            Make.googlePurchase(), with: pki.googleSigner, wrapper: .unsigned)
        let receipt = try Make.decode(payload)
        #expect(try VerificationWorld.verifier().status(of: receipt).verdict == .unsigned)
        #expect(ReceiptVerifier().status(of: receipt).verdict == .unsigned)
    }

    @Test("a purchase of a package we hold no key for stays unchecked")
    func noKey() throws {
        let pki = try VerificationWorld.ours()
        let receipt = try Make.decode(
            GooglePurchaseBuilder.payload(
                Make.googlePurchase(package: "com.other.app"),
                with: pki.googleSigner, wrapper: .dataAndSignature))
        let status = try VerificationWorld.verifier().status(of: receipt)
        #expect(status == SignatureStatus(.unchecked, "no Google key for package com.other.app"))
        #expect(ReceiptVerifier().status(of: receipt).verdict == .unchecked)
    }

    @Test("a purchase signed by another key than the package's is invalid")
    func otherKey() throws {
        let pki = try VerificationWorld.ours()
        let receipt = try Make.decode(
            GooglePurchaseBuilder.payload(
                Make.googlePurchase(), with: pki.appReceiptSignerSHA1,
                wrapper: .dataAndSignature))
        #expect(try VerificationWorld.verifier().status(of: receipt) == SignatureStatus(.invalid, "bad signature"))
    }
}
