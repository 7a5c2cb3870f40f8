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
        for (i, c) in b64.enumerated() { if i > 0, i % 76 == 0 { wrapped += "\n" }; wrapped.append(c) }
        #expect(try decode(wrapped).kind == .appleAppReceipt)
        #expect(try ReceiptDecoder.decode(try appReceipt(.xcodeBER)).purchases.count == 1)
        let unity = JSONValue.object(JSONObject([("Store", .string("AppleAppStore")), ("Payload", .string(b64))])).jsonText
        #expect(try decode(unity).kind == .appleAppReceipt)
    }

    @Test("a JWS, and a stored server notification body, are App Store JWS")
    func jws() throws {
        let tx = JWSBuilder.Transaction(transactionID: "2000", bundleID: "com.x.app", productID: "gems", purchaseDate: t, signedDate: t)
        let token = try JWSBuilder.transaction(tx, with: ecSigner)
        let r = try decode(token)
        #expect(r.kind == .appleJWSTransaction)
        #expect(r.jwsType == .transaction)
        #expect(try decode("{\"signedPayload\":\"\(token)\"}").purchases.first?.transactionID == "2000")
    }

    @Test("Google purchases in every wrapper")
    func google() throws {
        let data = GooglePurchaseBuilder.PurchaseData(orderID: "GPA.1", packageName: "com.x.app", productID: "gems",
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
            LegacyReceiptBuilder.Spec(bundleID: "com.x.app", productID: "gems", itemID: "1", transactionID: "4000", purchaseDate: t),
            signedBy: SigningIdentity.unverifiable(signatureLength: 128, certificates: [[0x30, 0x00]]))
        let r = try decode(legacy)
        #expect(r.kind == .appleLegacyReceipt)
        #expect(r.purchases.first?.transactionID == "4000")
    }

    @Test("anything else is a precise error with an offset, never a crash")
    func garbage() {
        for text in ["", "   ", "hello world", "{\"a\":1}", "[1,2]", "e30=", "a.b.c", "{\"Store\":\"AppleAppStore\",\"Payload\":\"x\"}",
                     String(repeating: "{\"signedPayload\":", count: 100)] {
            #expect(throws: DecodeError.self, "\(text)") { try decode(text) }
        }
        var limits = Limits()
        limits.maxPayloadBytes = 10
        #expect(throws: DecodeError.self) { try ReceiptDecoder.decode(Array("0123456789ABC".utf8), limits: limits) }
    }
}
