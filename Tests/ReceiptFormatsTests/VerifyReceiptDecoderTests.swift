import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// 2020-07-14 19:36:40 UTC, the date in Apple's own sample responses.
private let july2020: Int64 = 1_594_755_400_000
private let day: Int64 = 86_400_000

private func stamp(_ ms: Int64) throws -> Timestamp { try #require(Timestamp(millis: ms)) }

private func decode(_ text: String, limits: Limits = .standard) throws -> Receipt {
    let bytes = Array(text.utf8)
    let object = try #require(try JSONParser.parse(bytes).object)
    return try VerifyReceiptDecoder.decode(json: object, bytes: bytes, limits: limits)
}

private func decodeError(_ text: String) -> DecodeError? {
    do {
        _ = try decode(text)
        return nil
    } catch let error as DecodeError {
        return error
    } catch {
        return nil
    }
}

/// Offset of the first occurrence of `needle` in `text`.
private func offset(of needle: String, in text: String) throws -> Int {
    let range = try #require(text.utf8.firstRange(of: needle.utf8))
    return text.utf8.distance(from: text.utf8.startIndex, to: range.lowerBound)
}

private func coinsResponse() throws -> VerifyReceiptBuilder.Response {
    var response = VerifyReceiptBuilder.Response(
        bundleID: "com.example.game", appItemID: 1_234_567_890,
        receiptCreationDate: try stamp(july2020 + 60_000))
    response.receiptType = "Production"
    response.applicationVersion = "42"
    response.inApp = [
        VerifyReceiptBuilder.Transaction(
            productID: "coins100", transactionID: "1000000700000001", purchaseDate: try stamp(july2020)),
        VerifyReceiptBuilder.Transaction(
            productID: "vip.monthly", transactionID: "1000000700000002",
            purchaseDate: try stamp(july2020 + 1000)),
    ]
    response.inApp[1].expiresDate = try stamp(july2020 + 1000 + 30 * day)
    response.inApp[1].webOrderLineItemID = "1000000054000001"
    var renewed = response.inApp[1]
    renewed.cancellationDate = try stamp(july2020 + 5 * day)
    renewed.cancellationReason = "0"
    var renewal = VerifyReceiptBuilder.Transaction(
        productID: "vip.monthly", transactionID: "1000000700000003",
        originalTransactionID: "1000000700000002",
        purchaseDate: try stamp(july2020 + 30 * day))
    renewal.inAppOwnershipType = "PURCHASED"
    renewal.appAccountToken = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
    response.latestReceiptInfo = [renewed, renewal]
    return response
}

@Suite("verifyReceipt JSON responses")
struct VerifyReceiptDecoderTests {
    @Test("purchases are in_app and latest_receipt_info together, one per transaction, the latest view winning")
    func mergedPurchaseLists() throws {
        let receipt = try decode(try coinsResponse().text)
        #expect(receipt.kind == .appleVerifyReceiptJSON)
        #expect(receipt.platform == .ios)
        #expect(receipt.status == 0)
        #expect(receipt.environment == "Production")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.appItemID == 1_234_567_890)
        #expect(receipt.appVersion == "42")
        #expect(receipt.originalAppVersion == "1.0")
        #expect(receipt.creationDate == (try stamp(july2020 + 60_000)))
        #expect(JSONObject(receipt.extras)["receipt_type"] == .string("Production"))
        #expect(receipt.signed == .verifyReceipt(embedded: nil))

        #expect(receipt.purchases.map(\.transactionID) == ["1000000700000001", "1000000700000002", "1000000700000003"])
        let coins = receipt.purchases[0]
        #expect(coins.productID == "coins100")
        #expect(coins.quantity == 1)
        #expect(coins.purchaseDate == (try stamp(july2020)))
        #expect(JSONObject(coins.extras)["is_trial_period"] == .string("false"))
        let refunded = receipt.purchases[1]
        #expect(
            refunded.cancellationDate == (try stamp(july2020 + 5 * day)),
            "latest_receipt_info's refund wins over in_app")
        #expect(refunded.expiresDate == (try stamp(july2020 + 1000 + 30 * day)))
        #expect(refunded.webOrderLineItemID == "1000000054000001")
        #expect(JSONObject(refunded.extras)["cancellation_reason"] == .string("0"))
        let renewal = receipt.purchases[2]
        #expect(renewal.originalTransactionID == "1000000700000002")
        #expect(renewal.ownership == "PURCHASED")
        #expect(renewal.accountToken == "7E3FB20B-4CDB-47CC-936D-99D65F608138")
    }

    @Test("dates written only as '… Etc/GMT' read the same as their _ms twins")
    func gmtDates() throws {
        var response = try coinsResponse()
        response.millisecondDates = false
        #expect(!response.text.contains("_ms"))
        let gmtOnly = try decode(response.text)
        let withMillis = try decode(try coinsResponse().text)
        #expect(gmtOnly.purchases == withMillis.purchases)
        #expect(gmtOnly.creationDate == withMillis.creationDate)
    }

    @Test("status is kept whether Apple wrote it as a number or a string; 21007 marks a sandbox receipt")
    func status() throws {
        #expect(try decode(#"{"status": 21007}"#).status == 21007)
        #expect(try decode(#"{"status": "21007", "environment": "Sandbox"}"#).status == 21007)
        #expect(try decode(#"{"status": "21007", "environment": "Sandbox"}"#).environment == "Sandbox")
    }

    @Test("ids written as numbers read like ids written as strings")
    func numericIDs() throws {
        let text =
            #"{"status":0,"receipt":{"bundle_id":"a.b","adam_id":"77","in_app":[{"quantity":2,"#
            + #""product_id":"p","transaction_id":1000000700000009,"purchase_date_ms":1594755400000}]}}"#
        let receipt = try decode(text)
        #expect(receipt.appItemID == 77)
        #expect(receipt.purchases.first?.transactionID == "1000000700000009")
        #expect(receipt.purchases.first?.quantity == 2)
        #expect(receipt.purchases.first?.purchaseDate == (try stamp(july2020)))
    }

    @Test("an iOS 6 response: the receipt is the transaction and expires_date is in milliseconds")
    func iOS6Response() throws {
        let text =
            #"{"status":0,"receipt":{"bid":"com.example.old","bvrs":"1.2","item_id":"521129812","#
            + #""product_id":"sub.month","transaction_id":"1000000070000001","original_transaction_id":"1000000070000001","#
            + #""purchase_date":"2013-04-11 21:25:56 Etc/GMT","expires_date":"1368307556000","quantity":"1"},"#
            + #""latest_receipt_info":{"product_id":"sub.month","transaction_id":"1000000070000002","#
            + #""original_transaction_id":"1000000070000001","purchase_date_ms":"1368307556000","expires_date":"1370899556000"}}"#
        let receipt = try decode(text)
        #expect(receipt.appID == "com.example.old")
        #expect(receipt.appVersion == "1.2")
        #expect(receipt.purchases.count == 2)
        #expect(receipt.purchases[0].purchaseDate == (try stamp(1_365_715_556_000)))
        #expect(receipt.purchases[0].expiresDate == (try stamp(1_368_307_556_000)))
        #expect(receipt.purchases[1].purchaseDate == (try stamp(1_368_307_556_000)))
        #expect(receipt.purchases[1].expiresDate == (try stamp(1_370_899_556_000)))
    }

    @Test("an embedded latest_receipt decodes, and a forged expiry shows against what it signed")
    func forgedExpiryBesideSignedReceipt() throws {
        var spec = AppReceiptBuilder.Spec(
            bundleID: "com.example.game", appVersion: "42", appItemID: 1_234_567_890,
            creationDate: try stamp(july2020 + 60_000))
        var signedPeriod = AppReceiptBuilder.InAppPurchase(
            productID: "vip.monthly", transactionID: "1000000700000002",
            purchaseDate: try stamp(july2020 + 1000))
        signedPeriod.expiresDate = try stamp(july2020 + 1000 + 30 * day)
        spec.purchases = [signedPeriod]
        let der = try AppReceiptBuilder.build(spec, signedBy: .unverifiable())

        var response = try coinsResponse()
        response.latestReceipt = Base64.encode(der)
        let genuine = try decode(response.text)
        let year2029 = try stamp(1_861_920_000_000)
        let forged = try decode(response.rewritingClaims(of: "1000000700000002") { $0.expiresDate = year2029 }.text)

        guard case .verifyReceipt(let embedded?) = genuine.signed else {
            Issue.record("the genuine response lost its embedded receipt")
            return
        }
        #expect(embedded.receipt.kind == .appleAppReceipt)
        #expect(embedded.receipt.purchases.first?.expiresDate == (try stamp(july2020 + 1000 + 30 * day)))
        #expect(forged.signed == genuine.signed, "the forger left latest_receipt untouched")
        #expect(forged.purchases[1].expiresDate == year2029)
        #expect(JSONObject(genuine.extras)["latest_receipt_error"] == nil)
    }

    @Test("a latest_receipt that is not a receipt is reported, never dropped silently")
    func undecodableLatestReceipt() throws {
        let garbage = #"{"status":0,"environment":"Production","latest_receipt":"bm90IGEgcmVjZWlwdA=="}"#
        let receipt = try decode(garbage)
        #expect(receipt.signed == .verifyReceipt(embedded: nil))
        let error = try #require(JSONObject(receipt.extras)["latest_receipt_error"]?.object)
        #expect(error["code"]?.string?.isEmpty == false)
        #expect(error["offset"]?.int64 == Int64(try offset(of: "\"bm90", in: garbage)))

        let notBase64 = #"{"status":0,"latest_receipt":"MIIT*xyz"}"#
        let bad = try #require(JSONObject(try decode(notBase64).extras)["latest_receipt_error"]?.object)
        #expect(bad["code"] == .string("bad-base64"))
        #expect(bad["offset"]?.int64 == Int64(try offset(of: "*", in: notBase64)))

        #expect(JSONObject(try decode(#"{"status":0}"#).extras)["latest_receipt_error"] == nil)
    }

    @Test("the sniffer's predicate knows a response from a Google purchase")
    func looksLike() throws {
        let response = try #require(try JSONParser.parse(try coinsResponse().text).object)
        #expect(VerifyReceiptDecoder.looksLike(response))
        #expect(VerifyReceiptDecoder.looksLike(try #require(try JSONParser.parse(#"{"status":21002}"#).object)))
        let google = try #require(
            try JSONParser.parse(#"{"orderId":"GPA.1","packageName":"a","purchaseToken":"t"}"#).object)
        #expect(!VerifyReceiptDecoder.looksLike(google))
    }
}

@Suite("verifyReceipt JSON: hostile values")
struct VerifyReceiptHostileValueTests {
    @Test("a quantity past 64 bits names the field and points at its value")
    func quantityOverflow() throws {
        let text = #"{"status":0,"receipt":{"in_app":[{"product_id":"p"},{"quantity":"99999999999999999999"}]}}"#
        let error = try #require(decodeError(text))
        #expect(error.code == "number-out-of-range")
        #expect(error.reason.hasPrefix("receipt.in_app[1].quantity"))
        #expect(error.offset == (try offset(of: "\"9999", in: text)))
    }

    @Test("a date beyond year 9999 is out of range; an unreadable one is a bad date")
    func dates() throws {
        let farFuture = #"{"latest_receipt_info":[{"transaction_id":"1","expires_date_ms":"999999999999999999"}]}"#
        let error = try #require(decodeError(farFuture))
        #expect(error.code == "date-out-of-range")
        #expect(error.offset == (try offset(of: "\"999", in: farFuture)))

        let words = #"{"latest_receipt_info":[{"transaction_id":"1","purchase_date":"yesterday"}]}"#
        #expect(
            decodeError(words)
                == DecodeError(
                    "bad-date", "latest_receipt_info[0].purchase_date: \"yesterday\" is not a date",
                    at: try offset(of: "\"yesterday", in: words)))
    }

    @Test("a value of the wrong shape is refused with its place")
    func wrongShapes() throws {
        let objectID = #"{"receipt":{"in_app":[{"product_id":{"x":1}}]}}"#
        #expect(decodeError(objectID)?.code == "bad-field-type")
        #expect(decodeError(objectID)?.offset == (try offset(of: "{\"x\"", in: objectID)))
        #expect(decodeError(#"{"receipt":{"in_app":"none"}}"#)?.code == "bad-field-type")
        #expect(decodeError(#"{"receipt":{"in_app":[1]}}"#)?.code == "bad-field-type")
        #expect(decodeError(#"{"status":"ok"}"#)?.code == "bad-number")
        #expect(decodeError(#"{"receipt":{"in_app":[{"quantity":"-1"}]}}"#)?.code == "bad-number")
    }

    @Test("more purchases than the cap allows are refused")
    func purchaseCap() throws {
        var limits = Limits()
        limits.maxPurchases = 2
        let text =
            #"{"receipt":{"in_app":[{"transaction_id":"1"},{"transaction_id":"2"}]},"#
            + #""latest_receipt_info":[{"transaction_id":"2"},{"transaction_id":"3"}]}"#
        #expect(throws: DecodeError.self) { try decode(text, limits: limits) }
        limits.maxPurchases = 3
        #expect(try decode(text, limits: limits).purchases.count == 3)
    }

    @Test("without the raw text, errors still name the field")
    func withoutBytes() throws {
        let object = try #require(try JSONParser.parse(#"{"status":"x"}"#).object)
        #expect(throws: DecodeError("bad-number", "status: \"x\" is not a number", at: 0)) {
            try VerifyReceiptDecoder.decode(json: object)
        }
    }
}
