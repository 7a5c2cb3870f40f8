import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// 2012-04-30T15:05:55.868Z, as in the public iOS 6 sample receipts.
private let april2012: Int64 = 1_335_798_355_868
private let day: Int64 = 86_400_000

private func stamp(_ ms: Int64) throws -> Timestamp { try #require(Timestamp(millis: ms)) }

private func leaf() throws -> [UInt8] { try AppReceiptFixtures.certificate(serial: 5, issuer: "Test iTunes Store CA") }

/// Signs with bytes derived from the data, so a test can tell what was signed.
private func identity(signatureLength: Int = 128) throws -> SigningIdentity {
    SigningIdentity(certificates: [try leaf()], digestAlgorithmOID: "1.3.14.3.2.26") { data in
        (0..<signatureLength).map { UInt8(truncatingIfNeeded: data.count + $0) }
    }
}

private func spec() throws -> LegacyReceiptBuilder.Spec {
    var spec = LegacyReceiptBuilder.Spec(
        bundleID: "com.example.game", bundleVersion: "1.0.4",
        productID: "com.example.game.monthly", itemID: "521129812",
        transactionID: "1000000046178817", originalTransactionID: "1000000046178800",
        purchaseDate: try stamp(april2012),
        originalPurchaseDate: try stamp(april2012 - 30 * day))
    spec.quantity = 3
    spec.expiresDate = try stamp(april2012 + 30 * day)
    spec.webOrderLineItemID = "1000000026553322"
    spec.uniqueVendorIdentifier = "C6A1E3E0-2D4B-4A9A-9E3B-6D1E2B8C7F10"
    return spec
}

/// The outer plist bytes a client's base64 payload carries.
private func outerPlist(_ spec: LegacyReceiptBuilder.Spec, signatureLength: Int = 128) throws -> [UInt8] {
    try Base64.decode(LegacyReceiptBuilder.build(spec, signedBy: identity(signatureLength: signatureLength)))
}

/// An outer plist written by hand around the given parts.
private func outerPlist(signature: [UInt8], purchaseInfo: [UInt8], extra: String = "") -> [UInt8] {
    Array(
        """
        {
        \t"signature" = "\(Base64.encode(signature))";
        \t"purchase-info" = "\(Base64.encode(purchaseInfo))";\(extra)
        }
        """.utf8)
}

private func blob(
    signature: [UInt8] = Array(repeating: 7, count: 128), certificate: [UInt8], declaredLength: Int? = nil,
    version: UInt8 = 2
) -> [UInt8] {
    let length = UInt32(declaredLength ?? certificate.count)
    return [version] + signature + [
        UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
        UInt8(length & 0xFF),
    ] + certificate
}

private let simpleInfo = Array(#"{ "transaction-id" = "1"; "product-id" = "gems"; }"#.utf8)

private func failure(_ plist: [UInt8]) -> DecodeError? {
    do {
        _ = try LegacyReceiptDecoder.decode(plist: plist)
        return nil
    } catch {
        return error
    }
}

private func offset(of needle: String, in bytes: [UInt8]) throws -> Int {
    try #require(bytes.firstRange(of: Array(needle.utf8))).lowerBound
}

@Suite("iOS 6 transaction receipts")
struct LegacyReceiptTests {
    @Test("every purchase-info field reads back from a receipt the builder wrote")
    func roundTrip() throws {
        let receipt = try LegacyReceiptDecoder.decode(plist: outerPlist(spec()))
        #expect(receipt.kind == .appleLegacyReceipt)
        #expect(receipt.platform == .ios)
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.appVersion == "1.0.4")
        #expect(receipt.creationDate == (try stamp(april2012)))
        #expect(receipt.extras.map(\.key) == ["pod", "signing_status"])
        #expect(receipt.purchases.count == 1)
        let purchase = try #require(receipt.purchases.first)
        #expect(purchase.transactionID == "1000000046178817")
        #expect(purchase.originalTransactionID == "1000000046178800")
        #expect(purchase.productID == "com.example.game.monthly")
        #expect(purchase.quantity == 3)
        #expect(purchase.purchaseDate == (try stamp(april2012)))
        #expect(purchase.originalPurchaseDate == (try stamp(april2012 - 30 * day)))
        #expect(purchase.expiresDate == (try stamp(april2012 + 30 * day)))
        #expect(purchase.webOrderLineItemID == "1000000026553322")
        #expect(purchase.cancellationDate == nil)
        let extras = Dictionary(purchase.extras.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(
            extras == [
                "item_id": .string("521129812"),
                "unique_identifier": .string("0000b0090000000000000000000000000000000f"),
                "unique_vendor_identifier": .string("C6A1E3E0-2D4B-4A9A-9E3B-6D1E2B8C7F10"),
            ])
    }

    @Test("a receipt without an environment states none, and no iOS 6 environment counts as signed")
    func production() throws {
        var production = try spec()
        production.environment = nil
        let receipt = try LegacyReceiptDecoder.decode(plist: outerPlist(production))
        #expect(receipt.environment == nil, "the key is unsigned: it is not taken for Production")
        #expect(!receipt.environmentIsSigned)
        #expect(!(try LegacyReceiptDecoder.decode(plist: outerPlist(spec()))).environmentIsSigned)
    }

    @Test(
        "the signed bytes are 0x02 and the decoded purchase-info; signature and certificate are split out",
        arguments: [128, 256])
    func signedMaterial(signatureLength: Int) throws {
        let plist = try outerPlist(spec(), signatureLength: signatureLength)
        let outer = try OldStylePlist.parse(plist)
        let purchaseInfo = try Base64.decode(try #require(outer["purchase-info"]?.string))
        let receipt = try LegacyReceiptDecoder.decode(plist: plist)
        guard case .legacy(let signed) = receipt.signed else {
            Issue.record("expected legacy signed material")
            return
        }
        #expect(signed.signedData == [0x02] + purchaseInfo)
        #expect(
            signed.signature == (0..<signatureLength).map { UInt8(truncatingIfNeeded: purchaseInfo.count + 1 + $0) })
        #expect(signed.certificate == (try leaf()))
    }

    @Test("a receipt without its signature, or with an empty one, is read with its purchase and nothing to check")
    func withoutSignature() throws {
        let stripped = try Base64.decode(LegacyReceiptBuilder.withoutSignature(spec()))
        #expect(!String(decoding: stripped, as: UTF8.self).contains("\"signature\""))
        let receipt = try LegacyReceiptDecoder.decode(plist: stripped)
        #expect(receipt.kind == .appleLegacyReceipt)
        #expect(receipt.appID == "com.example.game")
        #expect(receipt.purchases.first?.transactionID == "1000000046178817")
        #expect(receipt.purchases.first?.quantity == 3)
        guard case .legacy(let signed) = receipt.signed else {
            Issue.record("expected legacy signed material")
            return
        }
        #expect(signed.signature == nil && signed.certificate == nil)
        #expect(signed.signedData.first == 0x02)
        #expect(SignatureStatus.withoutTrust(receipt) == SignatureStatus(.invalid, "no signature"))

        let empty = try LegacyReceiptDecoder.decode(plist: outerPlist(signature: [], purchaseInfo: simpleInfo))
        #expect(empty.purchases.first?.productID == "gems")
        #expect(SignatureStatus.withoutTrust(empty) == SignatureStatus(.invalid, "no signature"))
    }

    @Test("Apple's own spelling reads: formatted dates, expiry as epoch milliseconds")
    func appleSpelling() throws {
        let info = Array(
            """
            {
            \t"original-purchase-date-pst" = "2012-04-30 08:05:55 America/Los_Angeles";
            \t"purchase-date" = "2012-04-30 15:05:55 Etc/GMT";
            \t"original-purchase-date" = "2012-04-30 15:05:55 Etc/GMT";
            \t"expires-date" = "1335798655000";
            \t"transaction-id" = "1000000046178817";
            \t"quantity" = "1";
            \t"bid" = "com.example.game";
            }
            """.utf8)
        let receipt = try LegacyReceiptDecoder.decode(
            plist: outerPlist(
                signature: blob(certificate: leaf()),
                purchaseInfo: info))
        let purchase = try #require(receipt.purchases.first)
        #expect(purchase.purchaseDate == (try stamp(1_335_798_355_000)))
        #expect(purchase.originalPurchaseDate == (try stamp(1_335_798_355_000)))
        #expect(purchase.expiresDate == (try stamp(1_335_798_655_000)))
        #expect(purchase.extras.isEmpty)
    }

    @Test("a certificate length that lies is an error at the signature")
    func lyingCertificateLength() throws {
        let certificate = try leaf()
        for declared in [certificate.count + 1, certificate.count - 1, 0, Int(UInt32.max)] {
            let plist = outerPlist(
                signature: blob(certificate: certificate, declaredLength: declared),
                purchaseInfo: simpleInfo)
            let error = try #require(failure(plist))
            #expect(error.code == "bad-signature")
            #expect(error.offset == 17, "the opening quote of the signature value")
        }
    }

    @Test("a certificate whose own DER length lies, or a wrong version byte, is refused")
    func badSignatureBlob() throws {
        var certificate = try leaf()
        certificate[1] &+= 1
        let lyingDER = outerPlist(signature: blob(certificate: certificate), purchaseInfo: simpleInfo)
        #expect(failure(lyingDER)?.code == "bad-signature")
        let version3 = outerPlist(signature: blob(certificate: try leaf(), version: 3), purchaseInfo: simpleInfo)
        #expect(failure(version3)?.code == "bad-signature")
        #expect(failure(outerPlist(signature: [2, 0, 0, 0], purchaseInfo: simpleInfo))?.code == "bad-signature")
    }

    @Test("missing or misshapen outer fields are errors")
    func outerFields() throws {
        #expect(failure(Array(#"{ "signature" = "AA=="; }"#.utf8))?.code == "missing-field")
        #expect(failure(Array(#"{ "signature" = "AA=="; "purchase-info" = ( ); }"#.utf8))?.code == "bad-field")
        #expect(failure(Array(#"( "purchase-info" )"#.utf8))?.code == "not-legacy-receipt")
        let notDictionary = outerPlist(signature: blob(certificate: try leaf()), purchaseInfo: Array("(a)".utf8))
        #expect(failure(notDictionary)?.code == "not-legacy-receipt")
    }

    @Test("purchase-info that is not base64 is an error at the bad character")
    func badBase64() throws {
        let plist = Array(#"{ "signature" = "AA=="; "purchase-info" = "ab*d"; }"#.utf8)
        let error = try #require(failure(plist))
        #expect(error.code == "bad-base64")
        #expect(error.offset == (try offset(of: "*", in: plist)))
    }

    @Test("a broken inner plist is an error pointing into the purchase-info text")
    func brokenInnerPlist() throws {
        let info = Array(#"{ "transaction-id" = "1"; "product-id" = "never closed; }"#.utf8)
        let plist = outerPlist(signature: blob(certificate: try leaf()), purchaseInfo: info)
        let error = try #require(failure(plist))
        #expect(error.code == "unterminated-string")
        let start = try offset(of: Base64.encode(info), in: plist)
        #expect((start..<(start + Base64.encode(info).utf8.count + 1)).contains(error.offset))

        let badQuantity = Array(#"{ "quantity" = "many"; }"#.utf8)
        let quantity = outerPlist(signature: blob(certificate: try leaf()), purchaseInfo: badQuantity)
        #expect(failure(quantity)?.code == "bad-number")
        let badDate = Array(#"{ "purchase-date-ms" = "soon"; }"#.utf8)
        #expect(
            failure(outerPlist(signature: blob(certificate: try leaf()), purchaseInfo: badDate))?.code == "bad-date")
    }

    @Test("an outer plist cut short at any byte is an error, never a crash")
    func truncatedAnywhere() throws {
        let plist = try outerPlist(spec())
        for length in 0..<plist.count {
            let error = try #require(failure(Array(plist[..<length])), "cut at \(length)")
            #expect((0...length).contains(error.offset))
        }
    }
}
