import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

private let july2020: Int64 = 1_594_755_400_000

/// A stand-in for the Play key: its "signature" depends on every byte it signs, so a test
/// sees whether the exact originalJson bytes were kept.
private let playKey = SigningIdentity(certificates: [], digestAlgorithmOID: "1.3.14.3.2.26") { bytes in
    var h: UInt32 = 2_166_136_261
    for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
    return [
        UInt8(truncatingIfNeeded: h >> 24), UInt8(truncatingIfNeeded: h >> 16), UInt8(truncatingIfNeeded: h >> 8),
        UInt8(truncatingIfNeeded: h),
    ]
}

private func stamp(_ ms: Int64) throws -> Timestamp { try #require(Timestamp(millis: ms)) }

private func coins(orderID: String? = "GPA.3373-3758-4797-38496") throws -> GooglePurchaseBuilder.PurchaseData {
    var data = GooglePurchaseBuilder.PurchaseData(
        orderID: orderID, packageName: "com.example.game", productID: "coins100",
        purchaseTime: try stamp(july2020), purchaseToken: "opaque-token-1",
        obfuscatedAccountID: "user-42")
    data.acknowledged = true
    return data
}

private func decode(_ text: String) throws -> Receipt {
    try GooglePurchaseDecoder.decode(Array(text.utf8))
}

private func offset(of needle: String, in text: String) throws -> Int {
    let range = try #require(text.utf8.firstRange(of: needle.utf8))
    return text.utf8.distance(from: text.utf8.startIndex, to: range.lowerBound)
}

private func failure(_ text: String) -> DecodeError? {
    do {
        _ = try GooglePurchaseDecoder.decode(Array(text.utf8))
        return nil
    } catch {
        return error
    }
}

@Suite("Google Play purchases")
struct GooglePurchaseDecoderTests {
    @Test(
        "every wrapper decodes to the same purchase, originalJson kept byte for byte",
        arguments: GooglePurchaseBuilder.Wrapper.allCases)
    func wrappers(_ wrapper: GooglePurchaseBuilder.Wrapper) throws {
        let data = try coins()
        let receipt = try decode(try GooglePurchaseBuilder.payload(data, with: playKey, wrapper: wrapper))
        #expect(receipt.kind == .googlePurchase)
        #expect(receipt.platform == .android)
        #expect(receipt.environment == "Production")
        #expect(receipt.appID == "com.example.game")
        let p = try #require(receipt.purchases.first)
        #expect(p.transactionID == "GPA.3373-3758-4797-38496")
        #expect(p.productID == "coins100")
        #expect(p.purchaseDate == (try stamp(july2020)))
        #expect(p.purchaseState == 0)
        #expect(p.purchaseToken == "opaque-token-1")
        #expect(p.accountToken == "user-42")
        #expect(p.quantity == 1)
        #expect(JSONObject(p.extras)["acknowledged"] == .bool(true))

        let original = Array(data.originalJSON.utf8)
        let signature =
            wrapper == .unsigned ? nil : try GooglePurchaseBuilder.signature(of: data.originalJSON, with: playKey)
        #expect(receipt.signed == .google(originalJSON: original, signature: signature))
    }

    @Test(
        "a trailing newline in originalJson is part of the signed bytes and kept",
        arguments: [GooglePurchaseBuilder.Wrapper.dataAndSignature, .base64DataAndSignature, .unity])
    func trailingNewline(_ wrapper: GooglePurchaseBuilder.Wrapper) throws {
        let original = try coins().originalJSON + "\n"
        let signature = try GooglePurchaseBuilder.signature(of: original, with: playKey)
        let text = GooglePurchaseBuilder.payload(originalJSON: original, signature: signature, wrapper: wrapper)
        let receipt = try decode(text)
        #expect(receipt.signed == .google(originalJSON: Array(original.utf8), signature: signature))
    }

    @Test("a purchase without orderId is a test purchase; so is purchaseType 0")
    func testPurchases() throws {
        let receipt = try decode(
            try GooglePurchaseBuilder.payload(coins(orderID: nil), with: playKey, wrapper: .dataAndSignature))
        #expect(receipt.environment == "Test")
        #expect(receipt.purchases.first?.transactionID == nil)
        #expect(receipt.purchases.first?.purchaseToken == "opaque-token-1")

        let empty = try decode(#"{"orderId":"","packageName":"a.b","productId":"p","purchaseToken":"t"}"#)
        #expect(empty.environment == "Test")
        let tester = try decode(
            #"{"orderId":"GPA.1","packageName":"a.b","productId":"p","purchaseToken":"t","purchaseType":0}"#)
        #expect(tester.environment == "Test")
        #expect(tester.purchases.first?.purchaseType == 0)
    }

    @Test("a bare purchase keeps the whole text as its unsigned originalJson")
    func barePurchase() throws {
        let text =
            "{ \"orderId\": \"GPA.1\", \"packageName\": \"a.b\", \"productIds\": [\"p1\", \"p2\"], \"token\": \"legacy\" }"
        let receipt = try decode(text)
        #expect(receipt.signed == .google(originalJSON: Array(text.utf8), signature: nil))
        #expect(receipt.purchases.first?.productID == "p1")
        #expect(receipt.purchases.first?.purchaseToken == "legacy")
    }

    @Test("Unity's Payload is read whether it is a JSON string or an object")
    func unityPayloadObject() throws {
        let original = try coins().originalJSON
        let inner = JSONObject([("json", .string(original)), ("signature", .string("AAECAw=="))])
        let text = JSONValue.object(
            JSONObject([
                ("Store", .string("GooglePlay")), ("TransactionID", .string("GPA.1")),
                ("Payload", .object(inner)),
            ])
        ).jsonText
        let receipt = try decode(text)
        #expect(receipt.signed == .google(originalJSON: Array(original.utf8), signature: [0, 1, 2, 3]))
    }

    @Test(
        "data (Unity: json) stored as a JSON object decodes, its bytes as they stand kept as originalJson",
        arguments: [GooglePurchaseBuilder.Wrapper.dataAndSignature, .base64DataAndSignature, .unity],
        GooglePurchaseBuilder.ObjectForm.allCases)
    func dataAsObject(_ wrapper: GooglePurchaseBuilder.Wrapper, _ form: GooglePurchaseBuilder.ObjectForm) throws {
        let original = try coins().originalJSON
        let signature = try GooglePurchaseBuilder.signature(of: original, with: playKey)
        let text = try GooglePurchaseBuilder.payloadWithObject(
            originalJSON: original, signature: signature,
            wrapper: wrapper, form: form)
        let receipt = try decode(text)
        let p = try #require(receipt.purchases.first)
        #expect(p.transactionID == "GPA.3373-3758-4797-38496")
        #expect(p.productID == "coins100")
        #expect(p.accountToken == "user-42")
        #expect(receipt.appID == "com.example.game")
        #expect(JSONObject(receipt.extras)["original_json_was_object"] == .bool(true))
        guard case .google(let kept, let keptSignature, let key) = receipt.signed else {
            Issue.record("not a Google purchase: \(receipt.signed)")
            return
        }
        #expect(key == (wrapper == .unity ? "json" : "data"))
        #expect(keptSignature == signature)
        switch form {
        case .verbatim: #expect(kept == Array(original.utf8))
        case .reserialized:
            #expect(kept != Array(original.utf8))
            #expect(
                String(decoding: kept, as: UTF8.self).hasPrefix(
                    #"{"orderId": "GPA.3373-3758-4797-38496", "packageName": "#))
        }
    }

    @Test("an object's bytes are taken from the payload exactly, spacing and escapes included")
    func dataAsObjectExactBytes() throws {
        let object =
            "{ \"orderId\" : \"GPA.1\",\n  \"packageName\":\"a.b\", \"productId\":\"caf\\u00e9\", \"purchaseToken\":\"t\" }"
        let text = "{\"signature\":\"AAECAw==\" , \"data\" :  " + object + "\t}"
        let receipt = try decode(text)
        #expect(
            receipt.signed
                == .google(originalJSON: Array(object.utf8), signature: [0, 1, 2, 3], storedAsObjectIn: "data"))
        #expect(receipt.purchases.first?.productID == "caf\u{e9}")
        // Unsigned, it is still a Google purchase when the object is one.
        let bare = try decode("{\"data\":" + object + "}")
        #expect(bare.signed == .google(originalJSON: Array(object.utf8), signature: nil, storedAsObjectIn: "data"))
        // A key spelt with escapes cannot be found in the text: the object is written anew.
        let escaped = try decode("{\"d\\u0061ta\":" + object + ",\"signature\":\"AAECAw==\"}")
        guard case .google(let rewritten, _, "data") = escaped.signed else {
            Issue.record("not a Google purchase from an object: \(escaped.signed)")
            return
        }
        #expect(rewritten != Array(object.utf8))
        #expect(try JSONParser.parse(rewritten) == (try JSONParser.parse(object)))
    }

    @Test("a bad value inside a data object is named at its place in the payload")
    func dataAsObjectErrors() throws {
        let text =
            #"{"data":{"orderId":"GPA.1","packageName":"a.b","purchaseTime":123456789012345678901,"purchaseToken":"t"},"signature":"AA=="}"#
        let error = failure(text)
        #expect(error?.code == "date-out-of-range")
        #expect(error?.reason.hasPrefix("data.purchaseTime") == true)
        #expect(error?.offset == (try offset(of: "1234", in: text)))
    }

    @Test("the sniffer's predicate knows each Google shape and no Apple one")
    func looksLike() throws {
        for wrapper in GooglePurchaseBuilder.Wrapper.allCases where wrapper != .base64DataAndSignature {
            let text = try GooglePurchaseBuilder.payload(coins(), with: playKey, wrapper: wrapper)
            #expect(GooglePurchaseDecoder.looksLike(try #require(try JSONParser.parse(text).object)))
        }
        #expect(
            !GooglePurchaseDecoder.looksLike(try #require(try JSONParser.parse(#"{"status":0,"receipt":{}}"#).object)))
        #expect(
            !GooglePurchaseDecoder.looksLike(
                try #require(try JSONParser.parse(#"{"Store":"AppleAppStore","Payload":"MII"}"#).object)))
    }
}

@Suite("Google Play purchases: hostile input")
struct GooglePurchaseHostileInputTests {
    @Test("broken JSON inside data points at the byte in the outer text, escapes counted")
    func brokenOriginalJSON() throws {
        let text = #"{"data":"{\"orderId\":\"GPA.1\",\"packageName\" 1}","signature":""}"#
        let error = failure(text)
        #expect(error?.code == "bad-json")
        #expect(error?.offset == (try offset(of: " 1}", in: text)) + 1)

        let unicodeEscape = #"{"data":"{\"name\":\"caf\u00e9 \ud83d\ude00\",\"p\" 1}"}"#
        #expect(failure(unicodeEscape)?.offset == (try offset(of: " 1}", in: unicodeEscape)) + 1)
    }

    @Test("a purchaseTime or quantity past 64 bits names the field at its place")
    func overflow() throws {
        let text = #"{"orderId":"GPA.1","packageName":"a.b","purchaseTime":123456789012345678901,"purchaseToken":"t"}"#
        let error = failure(text)
        #expect(error?.code == "date-out-of-range")
        #expect(error?.reason.hasPrefix("purchaseTime") == true)
        #expect(error?.offset == (try offset(of: "1234", in: text)))
        let quantity = #"{"orderId":"GPA.1","packageName":"a.b","purchaseToken":"t","quantity":"18446744073709551616"}"#
        #expect(
            failure(quantity)
                == DecodeError(
                    "number-out-of-range", "quantity: \"18446744073709551616\" does not fit in 64 bits",
                    at: try offset(of: "\"1844", in: quantity)))
        #expect(
            failure(#"{"orderId":"GPA.1","packageName":"a.b","purchaseTime":1.5,"purchaseToken":"t"}"#)?.code
                == "bad-date")
    }

    @Test("a signature that is not base64 is refused at its byte")
    func badSignature() throws {
        let text =
            #"{"data":"{\"orderId\":\"GPA.1\",\"packageName\":\"a\",\"purchaseToken\":\"t\"}","signature":"AAE*"}"#
        let error = failure(text)
        #expect(error?.code == "bad-base64")
        #expect(error?.offset == (try offset(of: "*", in: text)))
    }

    @Test("data that is not the originalJson text, or a wrapper without it, is refused")
    func wrongShapes() {
        #expect(failure(#"{"data":7,"signature":"AA=="}"#)?.code == "bad-field-type")
        #expect(failure(#"{"data":["{}"],"signature":"AA=="}"#)?.code == "bad-field-type")
        #expect(failure(#"{"Store":"GooglePlay","Payload":"{\"signature\":\"AA==\"}"}"#)?.code == "bad-google-purchase")
        #expect(failure(#"{"Store":"GooglePlay","Payload":7}"#)?.code == "bad-field-type")
        #expect(failure(#"{"Store":"AppleAppStore","Payload":"MII"}"#)?.code == "not-a-google-purchase")
        #expect(failure(#"{"hello":"world"}"#)?.code == "not-a-google-purchase")
        #expect(
            failure(#"{"orderId":"GPA.1","packageName":"a","productIds":"p","purchaseToken":"t"}"#)?.code
                == "bad-field-type")
    }

    @Test("base64 that is not a wrapper, and invalid UTF-8, fail with offsets")
    func encodings() {
        #expect(failure("eyJkYXRhIjo*")?.code == "bad-base64")
        #expect(failure("eyJkYXRhIjo*")?.offset == 11)
        let bytes: [UInt8] =
            Array(#"{"orderId":"GPA"#.utf8) + [0xFF] + Array(#"","packageName":"a","purchaseToken":"t"}"#.utf8)
        #expect(throws: DecodeError("invalid-utf8", "string is not valid UTF-8", at: 15)) {
            try GooglePurchaseDecoder.decode(bytes)
        }
    }

    @Test("broken JSON in a Unity Payload string points into the outer text")
    func brokenUnityPayload() throws {
        let text = #"{"Store":"GooglePlay","Payload":"{\"json\" 1}"}"#
        let error = failure(text)
        #expect(error?.code == "bad-json")
        #expect(error?.offset == (try offset(of: " 1}", in: text)) + 1)
    }
}
