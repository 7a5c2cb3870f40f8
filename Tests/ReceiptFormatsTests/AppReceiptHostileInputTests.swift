import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import Testing

private func failure(_ der: [UInt8], limits: Limits = .standard) -> DecodeError? {
    do {
        _ = try AppReceiptDecoder.decode(der: der, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// A small receipt: one purchase, one stand-in certificate.
private func smallReceipt(_ encoding: AppReceiptBuilder.Encoding) throws -> [UInt8] {
    var spec = try AppReceiptFixtures.fullSpec()
    spec.purchases = [spec.purchases[1]]
    spec.extraAttributes = []
    spec.encoding = encoding
    let identity = SigningIdentity.unverifiable(
        signatureLength: 128,
        certificates: [try AppReceiptFixtures.certificate(serial: 9, issuer: "CA")])
    return try AppReceiptBuilder.build(spec, signedBy: identity)
}

/// Wraps `content` as the signed content of a receipt.
private func signed(_ content: [UInt8]) throws -> [UInt8] {
    try DERSignedDataWriter.contentInfo(content: content, identity: AppReceiptFixtures.identity())
}

@Suite("Apple app receipts: hostile input")
struct AppReceiptHostileInputTests {
    @Test(
        "a receipt cut short at any byte is an error, never a crash",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func truncatedAnywhere(encoding: AppReceiptBuilder.Encoding) throws {
        let der = try smallReceipt(encoding)
        for length in 0..<der.count {
            let error = try #require(failure(Array(der[..<length])), "cut at \(length)")
            #expect((0...length).contains(error.offset), "cut at \(length): \(error)")
        }
    }

    @Test(
        "any single corrupted byte gives a receipt or an error with an offset inside it",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func corruptedAnywhere(encoding: AppReceiptBuilder.Encoding) throws {
        let der = try smallReceipt(encoding)
        for index in der.indices {
            for replacement: UInt8 in [der[index] ^ 0xFF, 0x80] {
                var bad = der
                bad[index] = replacement
                if let error = failure(bad) {
                    #expect((0...bad.count).contains(error.offset), "byte \(index): \(error)")
                    #expect(!error.code.isEmpty && !error.reason.isEmpty)
                }
            }
        }
    }

    @Test("an outer length of 0x84 FF FF FF FF is an error at the length")
    func hugeOuterLength() throws {
        let der = try smallReceipt(.der)
        #expect(der[1] == 0x82)
        let lying = [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF] + der[4...]
        let error = try #require(failure(lying))
        #expect(error.code == "truncated")
        #expect(error.offset == 1)
    }

    @Test("an Xcode receipt missing its last end-of-contents is an error")
    func missingEndOfContents() throws {
        let ber = try smallReceipt(.xcodeBER)
        #expect(Array(ber.suffix(2)) == [0, 0])
        #expect(failure(Array(ber.dropLast(2)))?.code == "missing-end-of-contents")
    }

    @Test("bytes after the receipt are an error")
    func trailingBytes() throws {
        let der = try smallReceipt(.der)
        let error = failure(der + [0x00])
        #expect(error?.code == "trailing-bytes")
        #expect(error?.offset == der.count)
    }

    @Test("signed content nested a million levels deep fails fast at the depth cap")
    func deepPayload() throws {
        let depth = 1_000_000
        let nested = (0..<2 * depth).map { $0 % 2 == 0 ? UInt8(0x31) : UInt8(0x80) }
        #expect(failure(try signed(nested))?.code == "too-deep")
    }

    @Test("a payload with more attributes than the element cap is an error")
    func elementCap() throws {
        var spec = try AppReceiptFixtures.fullSpec()
        spec.extraAttributes = (1000..<1200).map { .init(type: Int64($0), value: [0x01]) }
        var limits = Limits.standard
        limits.maxElements = 100
        #expect(failure(try AppReceiptFixtures.receipt(spec), limits: limits)?.code == "too-many-elements")
    }

    @Test("an attribute type beyond 64 bits is an error")
    func attributeTypeOverflow() throws {
        // SET { SEQUENCE { INTEGER (9 octets), INTEGER 1, OCTET STRING {} } }
        let attribute: [UInt8] = [0x30, 0x10, 0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x01, 0x01, 0x04, 0x00]
        let error = failure(try signed([0x31, UInt8(attribute.count)] + attribute))
        #expect(error?.code == "integer-overflow")
    }

    @Test("DER that is not PKCS#7, or other bytes entirely, is not a receipt")
    func notAReceipt() throws {
        let certificate = try AppReceiptFixtures.certificate(serial: 1, issuer: "CA")
        #expect(failure(certificate)?.code == "not-pkcs7")
        #expect(failure(Array("hello, receipt".utf8))?.code == "not-pkcs7")
        #expect(failure([])?.code == "not-pkcs7")

        // ContentInfo { envelopedData, [0] { SEQUENCE {} } }
        var writer = DERWriter()
        try writer.writeConstructed(DERWriter.sequence) { info in
            try info.writeObjectIdentifier("1.2.840.113549.1.7.3")
            info.writeConstructed(DERWriter.contextSpecific(0)) { $0.writeConstructed(DERWriter.sequence) { _ in } }
        }
        #expect(failure(writer.bytes)?.code == "not-signed-data")
    }

    @Test("a receipt past the payload size cap is refused before parsing")
    func sizeCap() throws {
        var limits = Limits.standard
        limits.maxPayloadBytes = 100
        #expect(failure(try smallReceipt(.der), limits: limits)?.code == "too-large")
    }
}
