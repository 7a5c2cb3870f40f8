import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import StoreCrypto
import Testing

@Suite("Apple JWS (StoreKit 2, App Store Server API)")
struct JWSVerificationTests {
    private static let signed = "2024-06-01T10:00:00Z"

    @Test("a signed transaction from Apple's ES256 chain is valid at its signedDate")
    func valid() throws {
        let jws = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed), with: VerificationWorld.ours().jwsSigner)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status.verdict == .valid, "\(status.reason)")
    }

    @Test("renewal info and app transactions verify the same way")
    func otherPayloads() throws {
        let pki = try VerificationWorld.ours()
        let renewal = JWSBuilder.RenewalInfo(
            originalTransactionID: "2000000123", productID: "com.example.game.vip",
            renewalDate: try Make.time("2024-07-01T10:00:00Z"),
            signedDate: try Make.time(Self.signed))
        let app = JWSBuilder.AppTransaction(
            appAppleID: 1_234_567_890, bundleID: VerificationWorld.bundleID,
            applicationVersion: "42", originalApplicationVersion: "1.0",
            receiptCreationDate: try Make.time(Self.signed),
            originalPurchaseDate: try Make.time("2023-01-01T00:00:00Z"),
            appTransactionID: "704289572963189442", signedDate: try Make.time(Self.signed))
        let verifier = try VerificationWorld.verifier()
        #expect(
            verifier.status(of: try Make.decode(JWSBuilder.renewalInfo(renewal, with: pki.jwsSigner))).verdict == .valid
        )
        #expect(
            verifier.status(of: try Make.decode(JWSBuilder.appTransaction(app, with: pki.jwsSigner))).verdict == .valid)
    }

    @Test("a transaction or renewal info of only a few fields is checked as usual: valid from our chain, else invalid")
    func fewFields() throws {
        let pki = try VerificationWorld.ours()
        let verifier = try VerificationWorld.verifier()
        for bundleID in [VerificationWorld.bundleID, nil] {
            let spec = JWSBuilder.FewFields(bundleID: bundleID, signedDate: try Make.time(Self.signed))
            let genuine = try Make.decode(JWSBuilder.fewFields(spec, with: pki.jwsSigner))
            #expect(genuine.jwsType == (bundleID == nil ? .renewalInfo : .transaction))
            #expect(verifier.status(of: genuine).verdict == .valid, "\(verifier.status(of: genuine).reason)")
            let forged = try Make.decode(JWSBuilder.fewFields(spec, with: VerificationWorld.forger().jwsSigner))
            #expect(verifier.status(of: forged) == SignatureStatus(.invalid, "untrusted root"))
            #expect(ReceiptVerifier().status(of: genuine).verdict == .unchecked)
        }
    }

    @Test("a transaction's decoded JSON, stored without its JWS, is unsigned whatever the trust")
    func decodedJSON() throws {
        let receipt = try Make.decode(JWSBuilder.decodedJSON(Make.transaction(signed: Self.signed)))
        #expect(receipt.purchases.first?.transactionID == "2000000123")
        #expect(
            try VerificationWorld.verifier().status(of: receipt)
                == SignatureStatus(.unsigned, "decoded transaction JSON, no JWS"))
        #expect(ReceiptVerifier().status(of: receipt) == SignatureStatus(.unsigned, "decoded transaction JSON, no JWS"))
    }

    @Test("a JWS whose payload was re-encoded with another product is invalid: bad signature")
    func rewrittenPayload() throws {
        let jws = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed), with: VerificationWorld.ours().jwsSigner)
        let parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        var spec = try Make.transaction(signed: Self.signed)
        spec.productID = "com.example.game.gems10000"
        let payload = Base64.encode(Array(JSONValue.object(spec.payload).jsonText.utf8), alphabet: .url)
        let receipt = try Make.decode([parts[0], payload, parts[2]].joined(separator: "."))
        #expect(receipt.purchases.first?.productID == "com.example.game.gems10000")
        #expect(try VerificationWorld.verifier().status(of: receipt) == SignatureStatus(.invalid, "bad signature"))
    }

    @Test("a changed byte anywhere in the payload or the signature is caught")
    func everyPayloadAndSignatureByte() throws {
        let receipt = try Make.decode(
            JWSBuilder.transaction(
                Make.transaction(signed: Self.signed),
                with: VerificationWorld.ours().jwsSigner))
        guard case .jws(let signed, nested: []) = receipt.signed else {
            Issue.record("not a JWS: \(receipt.signed)")
            return
        }
        let verifier = try VerificationWorld.verifier()
        let payloadStart = try #require(signed.signingInput.firstIndex(of: 0x2E)) + 1
        for index in payloadStart..<signed.signingInput.count {
            var changed = signed
            changed.signingInput = Make.flipping(signed.signingInput, at: index)
            #expect(status(verifier, receipt, changed).verdict == .invalid, "payload byte \(index) changed unnoticed")
        }
        for index in signed.signature.indices {
            var changed = signed
            changed.signature = Make.flipping(signed.signature, at: index)
            #expect(
                status(verifier, receipt, changed) == SignatureStatus(.invalid, "bad signature"),
                "signature byte \(index) changed unnoticed")
        }
    }

    @Test("a JWS whose alg is not ES256 is invalid")
    func otherAlgorithm() throws {
        let pki = try VerificationWorld.ours()
        let jws = try handMade(
            header: ["alg": "RS256"], certificates: pki.jwsSigner.certificates,
            payload: Make.transaction(signed: Self.signed).payload, key: pki.keys.jwsSigning)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "JWS alg \"RS256\" is not ES256"))
    }

    @Test("a JWS whose x5c holds two certificates is invalid, though they would chain")
    func twoCertificates() throws {
        let pki = try VerificationWorld.ours()
        let jws = try handMade(
            header: ["alg": "ES256"], certificates: [pki.jwsSigning.der, pki.wwdrG6.der],
            payload: Make.transaction(signed: Self.signed).payload, key: pki.keys.jwsSigning)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "x5c holds 2 certificates, not 3"))
    }

    @Test("a JWS without x5c is invalid")
    func noCertificates() throws {
        let pki = try VerificationWorld.ours()
        let jws = try handMade(
            header: ["alg": "ES256"], certificates: nil,
            payload: Make.transaction(signed: Self.signed).payload, key: pki.keys.jwsSigning)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "x5c holds 0 certificates, not 3"))
    }

    @Test("an Xcode StoreKit Testing JWS is invalid: untrusted root")
    func xcode() throws {
        let pki = try VerificationWorld.ours()
        let jws = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed, environment: "Xcode"),
            with: pki.xcodeJWSSigner, keyID: "Apple_Xcode_Key")
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status.verdict == .invalid)
        #expect(status.reason.hasPrefix("untrusted root"), "\(status.reason)")
        let local = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed, environment: "LocalTesting"),
            with: pki.xcodeJWSSigner)
        #expect(try VerificationWorld.verifier().status(of: Make.decode(local)).reason.hasPrefix("untrusted root"))
    }

    @Test("a JWS signed by a developer certificate under WWDR G6 is invalid: leaf lacks the receipt-signing OID")
    func developerLeaf() throws {
        let jws = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed),
            with: VerificationWorld.ours().developerJWSSigner)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "leaf lacks receipt-signing OID"))
    }

    @Test("a JWS from a forger's root G3 is invalid: untrusted root")
    func untrustedRoot() throws {
        let jws = try JWSBuilder.transaction(
            Make.transaction(signed: Self.signed), with: VerificationWorld.forger().jwsSigner)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "untrusted root"))
    }

    @Test("a JWS signed after its leaf expired is invalid; one signed before is valid")
    func signedDateDecides() throws {
        let pki = try VerificationWorld.expiring()
        let verifier = try VerificationWorld.verifier()
        let before = try JWSBuilder.transaction(Make.transaction(signed: "2014-06-01T00:00:00Z"), with: pki.jwsSigner)
        let after = try JWSBuilder.transaction(Make.transaction(signed: "2015-06-01T00:00:00Z"), with: pki.jwsSigner)
        #expect(verifier.status(of: try Make.decode(before)).verdict == .valid)
        #expect(verifier.status(of: try Make.decode(after)).reason.hasPrefix("expired at signing time"))
    }

    @Test("a notification verifies only when its signed transaction does too")
    func notification() throws {
        let pki = try VerificationWorld.ours()
        var spec = JWSBuilder.Notification(
            notificationType: "ONE_TIME_CHARGE",
            notificationUUID: "6b3c2d9e-1f4a-4c8e-9d2b-7a5e3f1c0b8d",
            bundleID: VerificationWorld.bundleID, signedDate: try Make.time(Self.signed),
            transaction: try Make.transaction(signed: Self.signed))
        let verifier = try VerificationWorld.verifier()
        #expect(
            verifier.status(of: try Make.decode(JWSBuilder.notification(spec, with: pki.jwsSigner))).verdict == .valid)

        let transaction = try JWSBuilder.transaction(Make.transaction(signed: Self.signed), with: pki.jwsSigner)
        let badTransaction = try corruptingSignature(of: transaction)
        spec.transaction = nil
        let outer = try JWSBuilder.sign(
            payload: spec.payload(signedTransactionInfo: badTransaction), with: pki.jwsSigner)
        let status = verifier.status(of: try Make.decode(outer))
        #expect(status == SignatureStatus(.invalid, "signedTransactionInfo: bad signature"))
    }

    private func status(_ verifier: ReceiptVerifier, _ receipt: Receipt, _ signed: JWSSigned) -> SignatureStatus {
        var changed = receipt
        changed.signed = .jws(signed, nested: [])
        return verifier.status(of: changed)
    }

    /// The JWS with one character in the middle of its signature segment changed.
    private func corruptingSignature(of jws: String) throws -> String {
        var characters = Array(jws)
        let lastDot = try #require(characters.lastIndex(of: "."))
        let middle = lastDot + (characters.count - lastDot) / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }

    /// A JWS with a header of our choosing, ES256-signed with `key`.
    private func handMade(
        header: [String: String], certificates: [[UInt8]]?, payload: JSONObject,
        key: PrivateKey
    ) throws -> String {
        var fields = JSONObject(header.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        if let certificates {
            fields.members.append(("x5c", .array(certificates.map { .string(Base64.encode($0)) })))
        }
        let segment = { (object: JSONObject) in
            Base64.encode(Array(JSONValue.object(object).jsonText.utf8), alphabet: .url)
        }
        let signingInput = segment(fields) + "." + segment(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url)
    }
}
