import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

/// A server notification is trusted only when it and every JWS its `data` nests verify,
/// each at its own signedDate; the first that fails is named in the reason.
@Suite("App Store Server Notifications V2: the notification and every nested JWS")
struct NotificationVerificationTests {
    private static let signed = "2024-06-01T10:00:00Z"

    @Test("a notification with a valid transaction and valid renewal info verifies")
    func valid() throws {
        let pki = try VerificationWorld.ours()
        let receipt = try Make.decode(
            didRenew(transaction: pki.jwsSigner, renewal: pki.jwsSigner, outer: pki.jwsSigner))
        guard case .jws(_, let nested) = receipt.signed else {
            Issue.record("not a JWS: \(receipt.signed)")
            return
        }
        #expect(nested.map(\.field) == [.signedTransactionInfo, .signedRenewalInfo])
        #expect(
            try VerificationWorld.verifier().status(of: receipt)
                == SignatureStatus(.valid, "signature and chain verified"))
        #expect(ReceiptVerifier().status(of: receipt).verdict == .unchecked)
    }

    @Test(
        "renewal info signed by a chain outside the trust store makes the notification invalid, naming signedRenewalInfo"
    )
    func renewalInfoFromForger() throws {
        let pki = try VerificationWorld.ours()
        let jws = try didRenew(
            transaction: pki.jwsSigner, renewal: VerificationWorld.forger().jwsSigner, outer: pki.jwsSigner)
        let status = try VerificationWorld.verifier().status(of: Make.decode(jws))
        #expect(status == SignatureStatus(.invalid, "signedRenewalInfo: untrusted root"))
    }

    @Test("renewal info whose payload was rewritten, or whose signature was changed, makes the notification invalid")
    func tamperedRenewalInfo() throws {
        let pki = try VerificationWorld.ours()
        let genuine = try JWSBuilder.renewalInfo(renewalInfo(), with: pki.jwsSigner)
        var revived = try renewalInfo()
        revived.autoRenewStatus = 1
        revived.autoRenewProductID = "com.example.game.vip.yearly"
        let transaction = try JWSBuilder.transaction(Make.transaction(signed: Self.signed), with: pki.jwsSigner)
        let verifier = try VerificationWorld.verifier()
        for tampered in [try replacingPayload(of: genuine, with: revived.payload), try flippingSignature(of: genuine)] {
            let outer = try notification(transaction: transaction, renewal: tampered, signedBy: pki.jwsSigner)
            #expect(
                verifier.status(of: try Make.decode(outer))
                    == SignatureStatus(.invalid, "signedRenewalInfo: bad signature"))
        }
    }

    @Test("each nested JWS is checked at its own signedDate: renewal info signed after its leaf expired fails alone")
    func ownSignedDate() throws {
        let pki = try VerificationWorld.expiring()
        var info = try renewalInfo()
        info.signedDate = try Make.time("2015-06-01T00:00:00Z")
        let renewal = try JWSBuilder.renewalInfo(info, with: pki.jwsSigner)
        let transaction = try JWSBuilder.transaction(
            Make.transaction(signed: "2014-06-01T00:00:00Z"), with: pki.jwsSigner)
        let outer = try notification(
            transaction: transaction, renewal: renewal, signedBy: pki.jwsSigner,
            at: "2014-06-01T00:00:00Z")
        let status = try VerificationWorld.verifier().status(of: Make.decode(outer))
        #expect(status.verdict == .invalid)
        #expect(status.reason.hasPrefix("signedRenewalInfo: expired at signing time"), "\(status.reason)")
    }

    @Test("the outer signature is judged first, then the nested JWS in order: the first that fails is named")
    func firstFailureNamed() throws {
        let pki = try VerificationWorld.ours()
        let forger = try VerificationWorld.forger().jwsSigner
        let verifier = try VerificationWorld.verifier()
        let both = try didRenew(transaction: forger, renewal: forger, outer: pki.jwsSigner)
        #expect(
            verifier.status(of: try Make.decode(both))
                == SignatureStatus(.invalid, "signedTransactionInfo: untrusted root"))
        let outer = try didRenew(transaction: pki.jwsSigner, renewal: forger, outer: forger)
        #expect(verifier.status(of: try Make.decode(outer)) == SignatureStatus(.invalid, "untrusted root"))
    }

    @Test("renewal info signed by StoreKit Testing in Xcode is untrusted, in an Xcode notification or a production one")
    func xcodeRenewalInfo() throws {
        let pki = try VerificationWorld.ours()
        var info = try renewalInfo()
        info.environment = "Xcode"
        let renewal = try JWSBuilder.renewalInfo(info, with: pki.xcodeJWSSigner, keyID: "Apple_Xcode_Key")
        let verifier = try VerificationWorld.verifier()
        let production = try notification(transaction: nil, renewal: renewal, signedBy: pki.jwsSigner)
        // Its one self-signed certificate is not the three an App Store JWS carries.
        #expect(
            verifier.status(of: try Make.decode(production))
                == SignatureStatus(.invalid, "signedRenewalInfo: x5c holds 1 certificate, not 3"))
        let xcode = try notification(
            transaction: nil, renewal: renewal, signedBy: pki.xcodeJWSSigner, environment: "Xcode")
        #expect(verifier.status(of: try Make.decode(xcode)).reason.hasPrefix("untrusted root: Xcode proofs"))
    }

    private func renewalInfo() throws -> JWSBuilder.RenewalInfo {
        var info = JWSBuilder.RenewalInfo(
            originalTransactionID: "2000000123", productID: "com.example.game.vip",
            renewalDate: try Make.time("2024-07-01T10:00:00Z"), signedDate: try Make.time(Self.signed))
        info.autoRenewStatus = 0
        return info
    }

    /// A DID_RENEW notification whose transaction, renewal info and outer JWS are signed by the given identities.
    private func didRenew(transaction: SigningIdentity, renewal: SigningIdentity, outer: SigningIdentity) throws
        -> String
    {
        try notification(
            transaction: JWSBuilder.transaction(Make.transaction(signed: Self.signed), with: transaction),
            renewal: JWSBuilder.renewalInfo(renewalInfo(), with: renewal), signedBy: outer)
    }

    /// The notification around already signed nested JWS: JWSBuilder writes no `signedRenewalInfo`,
    /// so it is added to the `data` it writes.
    private func notification(
        transaction: String?, renewal: String, signedBy identity: SigningIdentity,
        at time: String = signed, environment: String = "Production"
    ) throws -> String {
        var spec = JWSBuilder.Notification(
            notificationType: "DID_RENEW", notificationUUID: "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6",
            bundleID: VerificationWorld.bundleID, signedDate: try Make.time(time), transaction: nil)
        spec.environment = environment
        var payload = spec.payload(signedTransactionInfo: transaction)
        let dataIndex = try #require(payload.members.firstIndex { $0.key == "data" })
        var data = try #require(payload.members[dataIndex].value.object)
        data.members.append(("signedRenewalInfo", .string(renewal)))
        payload.members[dataIndex].value = .object(data)
        return try JWSBuilder.sign(payload: payload, with: identity)
    }

    /// The JWS with its payload segment replaced by `payload`, header and signature kept.
    private func replacingPayload(of jws: String, with payload: JSONObject) throws -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let segment = Base64.encode(Array(JSONValue.object(payload).jsonText.utf8), alphabet: .url)
        return [parts[0], segment, parts[2]].joined(separator: ".")
    }

    /// The JWS with the first byte of its signature changed.
    private func flippingSignature(of jws: String) throws -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let signature = Make.flipping(try Base64.decode(Array(parts[2].utf8), alphabet: .url, maxBytes: 1024), at: 0)
        return [parts[0], parts[1], Base64.encode(signature, alphabet: .url)].joined(separator: ".")
    }
}
