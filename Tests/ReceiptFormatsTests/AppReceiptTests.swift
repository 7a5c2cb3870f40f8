import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// Receipts made here with the builders; certificates are X.509-shaped stand-ins.
enum AppReceiptFixtures {
    /// 2020-07-14T19:36:40Z
    static let july2020: Int64 = 1_594_755_400_000
    static let day: Int64 = 86_400_000

    static func stamp(_ ms: Int64) throws -> Timestamp {
        try #require(Timestamp(millis: ms, hasMilliseconds: ms % 1000 != 0))
    }

    /// Certificate ::= SEQUENCE { tbs SEQUENCE { [0] { INTEGER 2 }, serial, AlgorithmIdentifier,
    /// issuer Name, … }, AlgorithmIdentifier, BIT STRING } — enough shape for issuer and serial.
    static func certificate(serial: UInt8, issuer: String) throws -> [UInt8] {
        var writer = DERWriter()
        try writer.writeConstructed(DERWriter.sequence) { certificate in
            try certificate.writeConstructed(DERWriter.sequence) { tbs in
                tbs.writeConstructed(DERWriter.contextSpecific(0)) { $0.writeInteger(2) }
                tbs.writeInteger(Int64(serial))
                try tbs.writeConstructed(DERWriter.sequence) { try $0.writeObjectIdentifier("1.2.840.113549.1.1.11") }
                try tbs.writeConstructed(DERWriter.sequence) { name in
                    try name.writeConstructed(DERWriter.set) { rdn in
                        try rdn.writeConstructed(DERWriter.sequence) { attribute in
                            try attribute.writeObjectIdentifier("2.5.4.3")
                            attribute.writeUTF8String(issuer)
                        }
                    }
                }
            }
            try certificate.writeConstructed(DERWriter.sequence) {
                try $0.writeObjectIdentifier("1.2.840.113549.1.1.11")
            }
            certificate.writeDefinite(0x03, [0x00, 0x01, 0x02])
        }
        return writer.bytes
    }

    static func chain() throws -> [[UInt8]] {
        [
            try certificate(serial: 0x71, issuer: "Test WWDR"), try certificate(serial: 0x02, issuer: "Test Root"),
            try certificate(serial: 0x01, issuer: "Test Root"),
        ]
    }

    static func identity(digest: String = "2.16.840.1.101.3.4.2.1") throws -> SigningIdentity {
        SigningIdentity.unverifiable(signatureLength: 256, certificates: try chain(), digestAlgorithmOID: digest)
    }

    static func integer(_ value: Int64) -> [UInt8] {
        var writer = DERWriter()
        writer.writeInteger(value)
        return writer.bytes
    }

    static func utf8(_ text: String) -> [UInt8] {
        var writer = DERWriter()
        writer.writeUTF8String(text)
        return writer.bytes
    }

    static func ia5(_ text: String) -> [UInt8] {
        var writer = DERWriter()
        writer.writeIA5String(text)
        return writer.bytes
    }

    /// Every attribute this project reads, with two purchases: a consumable and a refunded
    /// subscription period.
    static func fullSpec() throws -> AppReceiptBuilder.Spec {
        var spec = AppReceiptBuilder.Spec(
            environment: "Production", bundleID: "com.example.game", appVersion: "1.2.3",
            originalAppVersion: "1.0", appItemID: 1_234_567_890,
            creationDate: try stamp(july2020))
        spec.expirationDate = try stamp(july2020 + 365 * day)
        spec.ageRating = "12+"
        spec.opaqueValue = Array(0..<16)
        spec.sha1Hash = Array(100..<120)
        spec.extraAttributes = [
            .init(type: 8, value: ia5("2020-07-14T19:36:41Z")),
            .init(type: 9, value: integer(7)),
            .init(type: 11, value: integer(53_284_800)),
            .init(type: 15, value: integer(36_066_010_076_144)),
            .init(type: 16, value: integer(834_859_379)),
            .init(type: 18, value: ia5("2013-08-01T07:00:00Z")),
            .init(type: 20, value: utf8("")),
            .init(type: 25, value: integer(3)),
            .init(type: 9999, value: [0xDE, 0xAD]),
        ]
        var gems = AppReceiptBuilder.InAppPurchase(
            productID: "com.example.game.gems", transactionID: "1000000700000001",
            purchaseDate: try stamp(july2020 - day))
        gems.quantity = 2
        gems.productTypeCode = 1
        gems.webOrderLineItemID = 0
        var monthly = AppReceiptBuilder.InAppPurchase(
            productID: "com.example.game.monthly",
            transactionID: "1000000700000002",
            originalTransactionID: "1000000600000000",
            purchaseDate: try stamp(july2020 - 10 * day),
            originalPurchaseDate: try stamp(july2020 - 100 * day))
        monthly.expiresDate = try stamp(july2020 + 20 * day)
        monthly.cancellationDate = try stamp(july2020 - 2 * day)
        monthly.productTypeCode = 3
        monthly.webOrderLineItemID = 1_000_000_055_555_555
        monthly.isTrialPeriod = true
        monthly.isInIntroOfferPeriod = false
        monthly.promotionalOfferID = "spring.offer"
        monthly.extraAttributes = [
            .init(type: 1710, value: integer(0)),
            .init(type: 1714, value: ia5("")),
            .init(type: 4242, value: [0x01, 0x02]),
        ]
        spec.purchases = [gems, monthly]
        return spec
    }

    static func receipt(_ spec: AppReceiptBuilder.Spec, encoding: AppReceiptBuilder.Encoding = .der) throws -> [UInt8] {
        var spec = spec
        spec.encoding = encoding
        return try AppReceiptBuilder.build(spec, signedBy: identity())
    }
}

private func failure(_ der: [UInt8], limits: Limits = .standard) -> DecodeError? {
    do {
        _ = try AppReceiptDecoder.decode(der: der, limits: limits)
        return nil
    } catch {
        return error
    }
}

private func offset(of needle: [UInt8], in haystack: [UInt8]) throws -> Int {
    try #require(haystack.firstRange(of: needle)).lowerBound
}

private func extras(_ pairs: [(key: String, value: JSONValue)]) -> [String: JSONValue] {
    Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
}

private func purchase(_ receipt: Receipt, _ transactionID: String) throws -> Purchase {
    try #require(receipt.purchases.first { $0.transactionID == transactionID })
}

@Suite("Apple app receipts")
struct AppReceiptTests {
    typealias F = AppReceiptFixtures

    @Test(
        "every app-level attribute reads back from an App Store and an Xcode receipt",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func appAttributes(encoding: AppReceiptBuilder.Encoding) throws {
        let receipt = try AppReceiptDecoder.decode(der: F.receipt(F.fullSpec(), encoding: encoding))
        #expect(receipt.kind == .appleAppReceipt)
        #expect(receipt.platform == .ios)
        #expect(receipt.environment == "Production")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.appVersion == "1.2.3")
        #expect(receipt.originalAppVersion == "1.0")
        #expect(receipt.appItemID == 1_234_567_890)
        #expect(receipt.creationDate == (try F.stamp(F.july2020)))
        #expect(
            extras(receipt.extras) == [
                "opaque_value": .string("000102030405060708090a0b0c0d0e0f"),
                "sha1_hash": .string("6465666768696a6b6c6d6e6f7071727374757677"),
                "transaction_date": .string("2020-07-14T19:36:41Z"),
                "fulfillment_tool_version": .number("7"),
                "age_rating": .string("12+"),
                "developer_id": .number("53284800"),
                "download_id": .number("36066010076144"),
                "version_external_identifier": .number("834859379"),
                "original_purchase_date": .string("2013-08-01T07:00:00Z"),
                "expiration_date": .string("2021-07-14T19:36:40Z"),
                "attr_25": .string("020103"),
                "attr_9999": .string("dead"),
            ])
    }

    @Test(
        "every in-app attribute reads back from an App Store and an Xcode receipt",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func inAppAttributes(encoding: AppReceiptBuilder.Encoding) throws {
        let receipt = try AppReceiptDecoder.decode(der: F.receipt(F.fullSpec(), encoding: encoding))
        #expect(receipt.purchases.count == 2)

        let gems = try purchase(receipt, "1000000700000001")
        #expect(gems.productID == "com.example.game.gems")
        #expect(gems.originalTransactionID == "1000000700000001")
        #expect(gems.quantity == 2)
        #expect(gems.purchaseDate == (try F.stamp(F.july2020 - F.day)))
        #expect(gems.originalPurchaseDate == (try F.stamp(F.july2020 - F.day)))
        #expect(gems.expiresDate == nil)
        #expect(gems.cancellationDate == nil)
        #expect(gems.productType == .consumable)
        #expect(gems.webOrderLineItemID == "0")
        #expect(gems.extras.isEmpty)

        let monthly = try purchase(receipt, "1000000700000002")
        #expect(monthly.productID == "com.example.game.monthly")
        #expect(monthly.originalTransactionID == "1000000600000000")
        #expect(monthly.quantity == 1)
        #expect(monthly.purchaseDate == (try F.stamp(F.july2020 - 10 * F.day)))
        #expect(monthly.originalPurchaseDate == (try F.stamp(F.july2020 - 100 * F.day)))
        #expect(monthly.expiresDate == (try F.stamp(F.july2020 + 20 * F.day)))
        #expect(monthly.cancellationDate == (try F.stamp(F.july2020 - 2 * F.day)))
        #expect(monthly.productType == .autoRenewable)
        #expect(monthly.webOrderLineItemID == "1000000055555555")
        #expect(
            extras(monthly.extras) == [
                "is_trial_period": .bool(true),
                "is_in_intro_offer_period": .bool(false),
                "promotional_offer_id": .string("spring.offer"),
                "attr_1710": .string("020100"),
                "attr_4242": .string("0102"),
            ])
    }

    @Test("an App Store receipt and its Xcode-style BER twin decode to the same receipt")
    func derAndBERAgree() throws {
        let spec = try F.fullSpec()
        let der = try F.receipt(spec, encoding: .der)
        let ber = try F.receipt(spec, encoding: .xcodeBER)
        #expect(der != ber)
        #expect(try AppReceiptDecoder.decode(der: der) == (try AppReceiptDecoder.decode(der: ber)))
    }

    @Test("Xcode dates with +0100 offsets and fractional seconds read as the same instants")
    func xcodeDates() throws {
        var spec = try F.fullSpec()
        spec.creationDate = try F.stamp(F.july2020 + 123)
        spec.purchases[1].expiresDate = try F.stamp(F.july2020 + 20 * F.day + 500)
        spec.dateStyle = .offset(minutes: 60)
        let der = try F.receipt(spec, encoding: .xcodeBER)
        #expect(try offset(of: Array("2020-07-14T20:36:40.123+0100".utf8), in: der) > 0)
        let receipt = try AppReceiptDecoder.decode(der: der)
        #expect(receipt.creationDate?.millis == F.july2020 + 123)
        #expect(receipt.creationDate?.hasMilliseconds == true)
        #expect(try purchase(receipt, "1000000700000002").expiresDate?.millis == F.july2020 + 20 * F.day + 500)
        #expect(try purchase(receipt, "1000000700000001").purchaseDate?.millis == F.july2020 - F.day)

        spec.dateStyle = .offset(minutes: -330)
        let west = try AppReceiptDecoder.decode(der: F.receipt(spec))
        #expect(west.creationDate?.millis == F.july2020 + 123)
    }

    @Test("the signed material is kept for the signature check")
    func signedMaterial() throws {
        let spec = try F.fullSpec()
        let receipt = try AppReceiptDecoder.decode(der: F.receipt(spec))
        guard case .pkcs7(let signed) = receipt.signed else {
            Issue.record("expected PKCS#7 signed material")
            return
        }
        #expect(signed.content == AppReceiptBuilder.payload(spec))
        #expect(signed.certificates == (try F.chain()))
        #expect(signed.signature == [UInt8](repeating: 0, count: 256))
    }

    @Test("a receipt without purchases has an empty list")
    func noPurchases() throws {
        var spec = try F.fullSpec()
        spec.purchases = []
        #expect(try AppReceiptDecoder.decode(der: F.receipt(spec)).purchases.isEmpty)
    }

    @Test("a sandbox receipt says so and carries app item id 0")
    func sandbox() throws {
        var spec = try F.fullSpec()
        spec.environment = "ProductionSandbox"
        spec.appItemID = 0
        let receipt = try AppReceiptDecoder.decode(der: F.receipt(spec))
        #expect(receipt.environment == "ProductionSandbox")
        #expect(receipt.appItemID == 0)
    }

    @Test("an undocumented attribute in an unexpected shape is kept raw instead of failing")
    func unexpectedShapeKeptRaw() throws {
        var spec = try F.fullSpec()
        spec.extraAttributes = [.init(type: 11, value: F.utf8("x")), .init(type: 8, value: F.ia5("soon"))]
        let receipt = try AppReceiptDecoder.decode(der: F.receipt(spec))
        let kept = extras(receipt.extras)
        #expect(kept["attr_11"] == .string("0c0178"))
        #expect(kept["attr_8"] == .string("1604736f6f6e"))
        #expect(kept["developer_id"] == nil)
    }

    @Test("an in-app value that is not a SET is an error at that value")
    func inAppNotASet() throws {
        var spec = try F.fullSpec()
        spec.extraAttributes = [.init(type: 17, value: F.utf8("not a set"))]
        let der = try F.receipt(spec)
        let error = try #require(failure(der))
        #expect(error.code == "bad-attribute")
        #expect(error.reason.contains("17"))
        #expect(error.offset == (try offset(of: F.utf8("not a set"), in: der)))
    }

    @Test("a documented attribute in the wrong encoding is an error naming the attribute")
    func wrongEncoding() throws {
        var spec = try F.fullSpec()
        spec.purchases[0].productTypeCode = nil
        spec.purchases[0].extraAttributes = [.init(type: 1707, value: F.utf8("consumable"))]
        let der = try F.receipt(spec)
        let error = try #require(failure(der))
        #expect(error.code == "unexpected-tag")
        #expect(error.reason.contains("1707"))
        #expect(error.offset == (try offset(of: F.utf8("consumable"), in: der)))
    }

    @Test("a field given twice is an error rather than a guess")
    func duplicateField() throws {
        var spec = try F.fullSpec()
        spec.extraAttributes = [.init(type: 2, value: F.utf8("com.example.other"))]
        #expect(failure(try F.receipt(spec))?.code == "duplicate-attribute")
    }

    @Test(
        "an unreadable date is an error pointing at its text, also through Xcode's segments",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func badDate(encoding: AppReceiptBuilder.Encoding) throws {
        var spec = try F.fullSpec()
        spec.purchases[1].cancellationDate = try F.stamp(F.july2020 + 3 * F.day + 7_000)
        var der = try F.receipt(spec, encoding: encoding)
        let at = try offset(of: Array("2020-07-17T19:36:47Z".utf8), in: der)
        der[at + 5] = UInt8(ascii: "1")
        der[at + 6] = UInt8(ascii: "3")
        let error = try #require(failure(der))
        #expect(error.code == "bad-date")
        #expect(error.offset == at)
    }

    @Test("more purchases than the cap is an error")
    func purchaseCap() throws {
        var limits = Limits.standard
        limits.maxPurchases = 1
        let error = try #require(failure(try F.receipt(F.fullSpec()), limits: limits))
        #expect(error.code == "too-many-purchases")
    }

    @Test("signed content that is not a receipt attribute set is not an app receipt")
    func notAnAppReceipt() throws {
        let der = try DERSignedDataWriter.contentInfo(content: [0x30, 0x00], identity: F.identity())
        #expect(failure(der)?.code == "not-app-receipt")
    }
}
