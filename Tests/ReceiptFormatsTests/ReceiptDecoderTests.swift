import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// Every payload kind, as the stores and the clients' wrappers ship it, recognised by content.
@Suite("Recognising a payload by its content")
struct ReceiptDecoderTests {
    let signer = SigningIdentity.unverifiable(certificates: [[0x30, 0x03, 0x02, 0x01, 0x01]])
    let ecSigner = SigningIdentity.unverifiable(signatureLength: 64, certificates: [[0x30, 0x03, 0x02, 0x01, 0x01]])
    let t = Timestamp.parse("2024-03-01T12:00:00Z") ?? Timestamp(clampingMillis: 0)

    func appReceipt(_ encoding: AppReceiptBuilder.Encoding = .der) throws -> [UInt8] {
        var spec = AppReceiptBuilder.Spec(bundleID: "com.x.app", appVersion: "7", appItemID: 42, creationDate: t)
        spec.encoding = encoding
        spec.purchases = [AppReceiptBuilder.InAppPurchase(productID: "gems", transactionID: "1000", purchaseDate: t)]
        return try AppReceiptBuilder.build(spec, signedBy: signer)
    }

    func decode(_ text: String) throws -> Receipt { try ReceiptDecoder.decode(Array(text.utf8)) }

    @Test("an app receipt as raw DER, as base64, as wrapped base64, and as Xcode BER")
    func appReceipts() throws {
        let der = try appReceipt()
        #expect(try ReceiptDecoder.decode(der).kind == .appleAppReceipt)
        let b64 = Base64.encode(der)
        #expect(try decode(b64).purchases.first?.transactionID == "1000")
        #expect(try decode("  " + b64 + "\r\n").appID == "com.x.app")
        var wrapped = ""
        for (i, c) in b64.enumerated() {
            if i > 0, i % 76 == 0 { wrapped += "\n" }
            wrapped.append(c)
        }
        #expect(try decode(wrapped).kind == .appleAppReceipt)
        #expect(try ReceiptDecoder.decode(try appReceipt(.xcodeBER)).purchases.count == 1)
        let unity = JSONValue.object(JSONObject([("Store", .string("AppleAppStore")), ("Payload", .string(b64))]))
            .jsonText
        #expect(try decode(unity).kind == .appleAppReceipt)
    }

    @Test("a JWS, and a stored server notification body, are App Store JWS")
    func jws() throws {
        let tx = JWSBuilder.Transaction(
            transactionID: "2000", bundleID: "com.x.app", productID: "gems", purchaseDate: t, signedDate: t)
        let token = try JWSBuilder.transaction(tx, with: ecSigner)
        let r = try decode(token)
        #expect(r.kind == .appleJWSTransaction)
        #expect(r.jwsType == .transaction)
        #expect(try decode("{\"signedPayload\":\"\(token)\"}").purchases.first?.transactionID == "2000")
    }

    @Test("Google purchases in every wrapper")
    func google() throws {
        let data = GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.1", packageName: "com.x.app", productID: "gems",
            purchaseTime: t, purchaseToken: "tok")
        for wrapper in GooglePurchaseBuilder.Wrapper.allCases {
            let r = try decode(try GooglePurchaseBuilder.payload(data, with: signer, wrapper: wrapper))
            #expect(r.kind == .googlePurchase, "\(wrapper)")
            #expect(r.purchases.first?.transactionID == "GPA.1", "\(wrapper)")
        }
    }

    @Test("a verifyReceipt response and an iOS 6 receipt")
    func appleOthers() throws {
        var response = VerifyReceiptBuilder.Response(bundleID: "com.x.app", appItemID: 42, receiptCreationDate: t)
        response.inApp = [VerifyReceiptBuilder.Transaction(productID: "gems", transactionID: "3000", purchaseDate: t)]
        #expect(try decode(response.text).kind == .appleVerifyReceiptJSON)
        let legacy = try LegacyReceiptBuilder.build(
            LegacyReceiptBuilder.Spec(
                bundleID: "com.x.app", productID: "gems", itemID: "1", transactionID: "4000", purchaseDate: t),
            signedBy: SigningIdentity.unverifiable(signatureLength: 128, certificates: [[0x30, 0x00]]))
        let r = try decode(legacy)
        #expect(r.kind == .appleLegacyReceipt)
        #expect(r.purchases.first?.transactionID == "4000")
    }

    @Test("a transaction's decoded JSON, as Apple's server libraries return it, is an unsigned App Store transaction")
    func decodedTransactionJSON() throws {
        var tx = JWSBuilder.Transaction(
            transactionID: "2000000123", originalTransactionID: "2000000100", bundleID: "com.x.app",
            productID: "vip", type: "Auto-Renewable Subscription", purchaseDate: t, signedDate: t)
        let month = Timestamp(clampingMillis: t.millis + 30 * 86_400_000)
        tx.expiresDate = month
        tx.revocationDate = Timestamp(clampingMillis: t.millis + 86_400_000)
        tx.appAccountToken = "6f1c2a5e-8b7d-4c3e-9a1f-0e2d3c4b5a69"
        tx.inAppOwnershipType = "FAMILY_SHARED"
        tx.environment = "Sandbox"
        let json = JWSBuilder.decodedJSON(tx)
        for payload in [json, Base64.encode(Array(json.utf8))] {
            let r = try decode(payload)
            #expect(r.kind == .appleJWSTransaction)
            #expect(r.jwsType == .transaction)
            #expect(r.platform == .ios)
            #expect(r.environment == "Sandbox")
            #expect(r.appID == "com.x.app")
            #expect(r.creationDate == t)
            #expect(r.signed == .decodedJWSPayload)
            #expect(SignatureStatus.withoutTrust(r) == SignatureStatus(.unsigned, "decoded transaction JSON, no JWS"))
            let p = try #require(r.purchases.first)
            #expect(p.transactionID == "2000000123")
            #expect(p.originalTransactionID == "2000000100")
            #expect(p.productID == "vip")
            #expect(p.productType == .autoRenewable)
            #expect(p.purchaseDate == t)
            #expect(p.expiresDate == month)
            #expect(p.cancellationDate == Timestamp(clampingMillis: t.millis + 86_400_000))
            #expect(p.accountToken == "6f1c2a5e-8b7d-4c3e-9a1f-0e2d3c4b5a69")
            #expect(p.ownership == "FAMILY_SHARED")
            #expect(p.quantity == 1)
        }
    }

    @Test(
        "a stored decoded transaction that kept only the models' raw names (rawType, rawEnvironment, …) reads the same")
    func decodedTransactionRawNames() throws {
        let text =
            #"{"transactionId":"7","bundleId":"com.x.app","productId":"gems","purchaseDate":1709294400000,"#
            + #""rawType":"Consumable","rawEnvironment":"Sandbox","rawInAppOwnershipType":"PURCHASED","quantity":2}"#
        let r = try decode(text)
        #expect(r.environment == "Sandbox")
        #expect(r.purchases.first?.productType == .consumable)
        #expect(r.purchases.first?.ownership == "PURCHASED")
        #expect(r.purchases.first?.quantity == 2)
    }

    @Test("a decoded transaction is told apart from Google's purchase data and a verifyReceipt response")
    func decodedTransactionLookAlikes() throws {
        let data = GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.1", packageName: "com.x.app", productID: "gems",
            purchaseTime: t, purchaseToken: "tok")
        #expect(try decode(data.originalJSON).kind == .googlePurchase)
        #expect(
            try decode(#"{"transactionId":"1","orderId":"GPA.1","packageName":"com.x.app","purchaseToken":"t"}"#).kind
                == .googlePurchase)
        var response = VerifyReceiptBuilder.Response(bundleID: "com.x.app", appItemID: 42, receiptCreationDate: t)
        response.inApp = [VerifyReceiptBuilder.Transaction(productID: "gems", transactionID: "3000", purchaseDate: t)]
        #expect(try decode(response.text).kind == .appleVerifyReceiptJSON)
        #expect(
            try decode(#"{"status":0,"transactionId":"1","bundleId":"com.x.app","receipt":{"bundle_id":"com.x.app"}}"#)
                .kind
                == .appleVerifyReceiptJSON)
        for lookAlike in [#"{"transactionId":"1"}"#, #"{"transaction_id":"1","bundle_id":"com.x.app"}"#] {
            #expect(throws: DecodeError.self, "\(lookAlike)") { try decode(lookAlike) }
        }
        for json in [data.originalJSON, response.text] {
            #expect(!JWSDecoder.looksLikeDecodedTransaction(try #require(try JSONParser.parse(json).object)))
        }
    }

    @Test("a bad value in a decoded transaction is named at its place in the text")
    func decodedTransactionErrors() throws {
        let text = #"{"transactionId":"1","bundleId":"com.x.app","purchaseDate":"soon"}"#
        #expect(throws: DecodeError("bad-date", "purchaseDate: \"soon\" is not epoch milliseconds", at: 59)) {
            try decode(text)
        }
    }

    @Test("anything else is a precise error with an offset, never a crash")
    func garbage() {
        for text in [
            "", "   ", "hello world", "{\"a\":1}", "[1,2]", "e30=", "a.b.c",
            "{\"Store\":\"AppleAppStore\",\"Payload\":\"x\"}",
            String(repeating: "{\"signedPayload\":", count: 100),
        ] {
            #expect(throws: DecodeError.self, "\(text)") { try decode(text) }
        }
        var limits = Limits()
        limits.maxPayloadBytes = 10
        #expect(throws: DecodeError.self) { try ReceiptDecoder.decode(Array("0123456789ABC".utf8), limits: limits) }
    }
}
