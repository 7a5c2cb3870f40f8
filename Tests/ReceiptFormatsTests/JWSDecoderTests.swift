import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

private let october2023: Int64 = 1_698_148_900_000
private let fakeChain: [[UInt8]] = [
    [0x30, 0x03, 0x02, 0x01, 0x01], [0x30, 0x03, 0x02, 0x01, 0x02], [0x30, 0x03, 0x02, 0x01, 0x03],
]
private let signer = SigningIdentity.unverifiable(signatureLength: 64, certificates: fakeChain)

private func stamp(_ ms: Int64) throws -> Timestamp { try #require(Timestamp(millis: ms)) }

private func coinTransaction() throws -> JWSBuilder.Transaction {
    var t = JWSBuilder.Transaction(
        transactionID: "2000000456789012", bundleID: "com.example.game", productID: "coins100",
        purchaseDate: try stamp(october2023), signedDate: try stamp(october2023 + 2000))
    t.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    t.price = 990
    t.currency = "USD"
    t.appTransactionID = "704289572311614430"
    return t
}

private func decode(_ jws: String) throws -> Receipt {
    try JWSDecoder.decode(Array(jws.utf8))
}

/// A DID_RENEW notification's payload around `data` as given (JWSBuilder writes no renewal info).
private func didRenew(_ data: [(key: String, value: JSONValue)]) -> JSONObject {
    JSONObject([
        ("notificationType", .string("DID_RENEW")),
        ("notificationUUID", .string("c4f1e2d3-5a6b-4c7d-8e9f-0a1b2c3d4e5f")),
        ("data", .object(JSONObject(data))), ("version", .string("2.0")), ("signedDate", .integer(october2023 + 5000)),
    ])
}

@Suite("App Store JWS")
struct JWSDecoderTests {
    @Test("a signed transaction decodes with its purchase and everything its signature check needs")
    func transaction() throws {
        let jws = try JWSBuilder.transaction(coinTransaction(), with: signer)
        let receipt = try decode(jws)
        #expect(receipt.kind == .appleJWSTransaction)
        #expect(receipt.jwsType == .transaction)
        #expect(receipt.platform == .ios)
        #expect(receipt.environment == "Production")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.creationDate == (try stamp(october2023 + 2000)))

        let p = try #require(receipt.purchases.first)
        #expect(receipt.purchases.count == 1)
        #expect(p.transactionID == "2000000456789012")
        #expect(p.originalTransactionID == "2000000456789012")
        #expect(p.productID == "coins100")
        #expect(p.productType == .consumable)
        #expect(p.quantity == 1)
        #expect(p.purchaseDate == (try stamp(october2023)))
        #expect(p.accountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(p.ownership == "PURCHASED")
        let extras = JSONObject(p.extras)
        #expect(extras["price"] == .number("990"))
        #expect(extras["currency"] == .string("USD"))
        #expect(extras["storefront"] == .string("USA"))
        #expect(extras["transaction_reason"] == .string("PURCHASE"))
        #expect(extras["app_transaction_id"] == .string("704289572311614430"))

        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        let expected = JWSSigned(
            signingInput: Array("\(segments[0]).\(segments[1])".utf8), headerLength: segments[0].utf8.count,
            signature: [UInt8](repeating: 0, count: 64), algorithm: "ES256",
            certificates: fakeChain, signedDate: try stamp(october2023 + 2000))
        #expect(receipt.signed == .jws(expected, nested: []))
    }

    @Test("a subscription period keeps its expiry, revocation and web order line item")
    func revokedSubscription() throws {
        var t = try coinTransaction()
        t.productID = "vip.monthly"
        t.type = "Auto-Renewable Subscription"
        t.webOrderLineItemID = "2000000034567890"
        t.expiresDate = try stamp(october2023 + 2_592_000_000)
        t.revocationDate = try stamp(october2023 + 86_400_000)
        t.revocationReason = 1
        let receipt = try decode(try JWSBuilder.transaction(t, with: signer))
        let p = try #require(receipt.purchases.first)
        #expect(p.productType == .autoRenewable)
        #expect(p.webOrderLineItemID == "2000000034567890")
        #expect(p.expiresDate == (try stamp(october2023 + 2_592_000_000)))
        #expect(p.cancellationDate == (try stamp(october2023 + 86_400_000)))
        #expect(JSONObject(p.extras)["revocation_reason"] == .number("1"))
    }

    @Test("a prorated refund keeps its revocation type and percentage (milliunits) as written")
    func proratedRefund() throws {
        var t = try coinTransaction()
        t.revocationDate = try stamp(october2023 + 86_400_000)
        t.revocationReason = 0
        var payload = t.payload
        payload.members.append(("revocationType", .string("REFUND_PRORATED")))
        payload.members.append(("revocationPercentage", .integer(33_333)))
        let p = try #require(try decode(try JWSBuilder.sign(payload: payload, with: signer)).purchases.first)
        let extras = JSONObject(p.extras)
        #expect(extras["revocation_type"] == .string("REFUND_PRORATED"))
        #expect(extras["revocation_percentage"] == .number("33333"))
        #expect(p.extras.map(\.key).prefix(3) == ["revocation_reason", "revocation_type", "revocation_percentage"])
    }

    @Test("an Xcode token: fractional milliseconds truncate, its key id and environment show")
    func xcodeToken() throws {
        var t = try coinTransaction()
        t.environment = "Xcode"
        t.millisecondFraction = "987654"
        let jws = try JWSBuilder.transaction(t, with: signer, keyID: "Apple_Xcode_Key")
        #expect(
            try JSONParser.parse(Base64.decode(String(jws.split(separator: ".")[1]), alphabet: .url)).object?[
                "purchaseDate"]
                == .number("1698148900000.987654"))
        let receipt = try decode(jws)
        #expect(receipt.environment == "Xcode")
        #expect(JSONObject(receipt.extras)["kid"] == .string("Apple_Xcode_Key"))
        #expect(receipt.purchases.first?.purchaseDate == (try stamp(october2023)))
        #expect(receipt.creationDate == (try stamp(october2023 + 2000)))
    }

    @Test("renewal info is told apart and carries no purchase")
    func renewalInfo() throws {
        var info = JWSBuilder.RenewalInfo(
            originalTransactionID: "2000000456789012", productID: "vip.monthly",
            autoRenewProductID: "vip.yearly", renewalDate: try stamp(october2023 + 2_592_000_000),
            signedDate: try stamp(october2023))
        info.environment = "Sandbox"
        let receipt = try decode(try JWSBuilder.renewalInfo(info, with: signer))
        #expect(receipt.jwsType == .renewalInfo)
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.creationDate == (try stamp(october2023)))
        #expect(JSONObject(receipt.extras)["auto_renew_product_id"] == .string("vip.yearly"))
        #expect(JSONObject(receipt.extras)["original_transaction_id"] == .string("2000000456789012"))
    }

    @Test("an app transaction without signedDate is checked at its receipt creation date")
    func appTransaction() throws {
        var app = JWSBuilder.AppTransaction(
            appAppleID: 1_234_567_890, bundleID: "com.example.game", applicationVersion: "42",
            originalApplicationVersion: "1.0", receiptCreationDate: try stamp(october2023),
            originalPurchaseDate: try stamp(october2023 - 86_400_000),
            appTransactionID: "704289572311614430", signedDate: nil)
        app.receiptType = "Sandbox"
        let receipt = try decode(try JWSBuilder.appTransaction(app, with: signer))
        #expect(receipt.jwsType == .appTransaction)
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.appItemID == 1_234_567_890)
        #expect(receipt.appVersion == "42")
        #expect(receipt.originalAppVersion == "1.0")
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.creationDate == (try stamp(october2023)))
        guard case .jws(let signed, nested: []) = receipt.signed else {
            Issue.record("expected a lone JWS")
            return
        }
        #expect(signed.signedDate == (try stamp(october2023)))
    }

    @Test("a notification's nested transaction becomes its purchase, both signatures kept")
    func notification() throws {
        var n = JWSBuilder.Notification(
            notificationType: "ONE_TIME_CHARGE", notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            bundleID: "com.example.game", signedDate: try stamp(october2023 + 5000),
            transaction: try coinTransaction())
        n.environment = "Sandbox"
        n.appAppleID = 1_234_567_890
        n.bundleVersion = "42"
        let outer = try JWSBuilder.notification(n, with: signer)
        let inner = try JWSBuilder.transaction(coinTransaction(), with: signer)
        let receipt = try decode(outer)
        #expect(receipt.jwsType == .notification)
        #expect(receipt.environment == "Sandbox", "the notification's data wins over the transaction's")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.appItemID == 1_234_567_890)
        #expect(receipt.appVersion == "42")
        #expect(receipt.creationDate == (try stamp(october2023 + 5000)))
        #expect(receipt.purchases == (try decode(inner)).purchases)
        #expect(JSONObject(receipt.extras)["notification_type"] == .string("ONE_TIME_CHARGE"))
        guard case .jws(let signedOuter, let nested) = receipt.signed,
            case .jws(let expectedInner, []) = try decode(inner).signed
        else {
            Issue.record("expected a JWS with a nested one")
            return
        }
        #expect(signedOuter.signedDate == (try stamp(october2023 + 5000)))
        #expect(nested == [NestedJWS(field: .signedTransactionInfo, signed: expectedInner)])
    }

    @Test(
        "a notification keeps the signed material of its transaction and its renewal info, and what the renewal info says"
    )
    func notificationWithRenewalInfo() throws {
        let transaction = try JWSBuilder.transaction(coinTransaction(), with: signer)
        var info = JWSBuilder.RenewalInfo(
            originalTransactionID: "2000000456789012", productID: "vip.monthly",
            autoRenewProductID: "vip.yearly", renewalDate: try stamp(october2023 + 2_592_000_000),
            signedDate: try stamp(october2023 + 3000))
        info.autoRenewStatus = 0
        let renewal = try JWSBuilder.renewalInfo(info, with: signer)
        let receipt = try decode(
            try JWSBuilder.sign(
                payload: didRenew([
                    ("bundleId", .string("com.example.game")), ("environment", .string("Production")),
                    ("signedTransactionInfo", .string(transaction)), ("signedRenewalInfo", .string(renewal)),
                    ("status", .integer(1)),
                ]), with: signer))
        #expect(receipt.purchases == (try decode(transaction)).purchases)
        guard case .jws(_, let nested) = receipt.signed,
            case .jws(let signedTransaction, []) = try decode(transaction).signed,
            case .jws(let signedRenewal, []) = try decode(renewal).signed
        else {
            Issue.record("expected JWS throughout")
            return
        }
        #expect(
            nested == [
                NestedJWS(field: .signedTransactionInfo, signed: signedTransaction),
                NestedJWS(field: .signedRenewalInfo, signed: signedRenewal),
            ])
        #expect(signedRenewal.signedDate == (try stamp(october2023 + 3000)), "checked at its own signedDate")
        let extras = JSONObject(receipt.extras)
        #expect(extras["subscription_status"] == .number("1"))
        #expect(extras.keys.last == "renewal_info", "after what notifications printed before")
        let renewalInfo = try #require(extras["renewal_info"]?.object)
        #expect(renewalInfo["environment"] == .string("Production"))
        #expect(renewalInfo["auto_renew_product_id"] == .string("vip.yearly"))
        #expect(renewalInfo["auto_renew_status"] == .number("0"))
        #expect(renewalInfo["original_transaction_id"] == .string("2000000456789012"))
    }

    @Test("a notification with renewal info alone has no purchase and takes its environment when data has none")
    func notificationWithRenewalInfoAlone() throws {
        var info = JWSBuilder.RenewalInfo(
            originalTransactionID: "2000000456789012", productID: "vip.monthly",
            renewalDate: nil, signedDate: try stamp(october2023))
        info.environment = "Sandbox"
        let renewal = try JWSBuilder.renewalInfo(info, with: signer)
        let receipt = try decode(
            try JWSBuilder.sign(payload: didRenew([("signedRenewalInfo", .string(renewal))]), with: signer))
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.environment == "Sandbox")
        guard case .jws(_, let nested) = receipt.signed else {
            Issue.record("expected a JWS")
            return
        }
        #expect(nested.map(\.field) == [.signedRenewalInfo])
    }

    @Test("a notification without a transaction has no purchase")
    func notificationWithoutTransaction() throws {
        let n = JWSBuilder.Notification(
            notificationType: "TEST", notificationUUID: "u", bundleID: "com.example.game",
            signedDate: try stamp(october2023), transaction: nil)
        let receipt = try decode(try JWSBuilder.notification(n, with: signer))
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.environment == "Production")
        guard case .jws(_, nested: []) = receipt.signed else {
            Issue.record("expected no nested JWS")
            return
        }
    }

    @Test(
        "a transaction of only environment, bundleId and signedDate, as Apple's test fixtures sign, decodes with no purchase"
    )
    func fewFieldTransaction() throws {
        let spec = JWSBuilder.FewFields(bundleID: "com.example", signedDate: try stamp(october2023))
        let jws = try JWSBuilder.fewFields(spec, with: signer)
        let receipt = try decode(jws)
        #expect(receipt.kind == .appleJWSTransaction)
        #expect(receipt.jwsType == .transaction)
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.appID == "com.example")
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.creationDate == (try stamp(october2023)))
        guard case .jws(let signed, nested: []) = receipt.signed else {
            Issue.record("expected a lone JWS")
            return
        }
        #expect(signed.signedDate == (try stamp(october2023)))
        #expect(signed.certificates == fakeChain)
    }

    @Test("renewal info of only environment and signedDate decodes as renewal info")
    func fewFieldRenewalInfo() throws {
        let receipt = try decode(
            try JWSBuilder.fewFields(
                JWSBuilder.FewFields(bundleID: nil, signedDate: try stamp(october2023)),
                with: signer))
        #expect(receipt.jwsType == .renewalInfo)
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.appID == nil)
        #expect(receipt.purchases.isEmpty)
        #expect(receipt.creationDate == (try stamp(october2023)))
    }

    @Test("a few-field payload is a transaction when a field only transactions carry is there, else renewal info")
    func fewFieldTyping() throws {
        func type(_ more: [(key: String, value: JSONValue)], bundleID: String? = nil) throws -> Receipt {
            var spec = JWSBuilder.FewFields(bundleID: bundleID, signedDate: try stamp(october2023))
            spec.more = more
            return try decode(try JWSBuilder.fewFields(spec, with: signer))
        }
        let shared = try type([
            ("productId", .string("vip.monthly")), ("originalTransactionId", .string("2000000456789012")),
        ])
        #expect(shared.jwsType == .renewalInfo, "productId and originalTransactionId are in renewal info too")
        let bought = try type([("productId", .string("coins100")), ("purchaseDate", .integer(october2023))])
        #expect(bought.jwsType == .transaction)
        #expect(bought.purchases.isEmpty, "no transactionId, nothing to claim")
        #expect(JSONObject(bought.extras)["product_id"] == .string("coins100"), "what is there is kept as written")
        #expect(JSONObject(bought.extras)["purchase_date"] == .number(String(october2023)))
        #expect(try type([("type", .string("Consumable"))]).jwsType == .transaction)
    }

    @Test("a few-field payload inside a notification is its transaction")
    func fewFieldNested() throws {
        let inner = try JWSBuilder.fewFields(
            JWSBuilder.FewFields(bundleID: nil, signedDate: try stamp(october2023)), with: signer)
        let n = JWSBuilder.Notification(
            notificationType: "TEST", notificationUUID: "u", bundleID: "com.example.game",
            signedDate: try stamp(october2023), transaction: nil)
        let receipt = try decode(try JWSBuilder.sign(payload: n.payload(signedTransactionInfo: inner), with: signer))
        #expect(receipt.jwsType == .notification)
        #expect(receipt.purchases.isEmpty)
        guard case .jws(_, let nested) = receipt.signed else {
            Issue.record("expected a JWS")
            return
        }
        #expect(nested.map(\.field) == [.signedTransactionInfo], "the nested transaction's signed material")
    }

    @Test("a few-field payload inside signedRenewalInfo is renewal info, bundleId or not")
    func fewFieldNestedRenewalInfo() throws {
        let inner = try JWSBuilder.fewFields(
            JWSBuilder.FewFields(bundleID: "com.example.game", signedDate: try stamp(october2023)),
            with: signer)
        let receipt = try decode(
            try JWSBuilder.sign(payload: didRenew([("signedRenewalInfo", .string(inner))]), with: signer))
        #expect(receipt.purchases.isEmpty)
        #expect(
            JSONObject(receipt.extras)["renewal_info"] == .object(JSONObject([("environment", .string("Sandbox"))])))
    }

    @Test("the sniffer's predicate accepts a JWS and nothing else")
    func looksLike() throws {
        let jws = try JWSBuilder.transaction(coinTransaction(), with: signer)
        #expect(JWSDecoder.looksLike(Array((jws + "\r\n").utf8)))
        #expect(!JWSDecoder.looksLike(Array(#"{"a":1}"#.utf8)))
        #expect(!JWSDecoder.looksLike(Array("eyJhbGciOiJFUzI1NiJ9.e30".utf8)))
        #expect(!JWSDecoder.looksLike(Array("eyJ.a b.c".utf8)))
    }
}
