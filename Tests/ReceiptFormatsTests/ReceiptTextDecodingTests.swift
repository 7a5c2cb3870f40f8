import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// Both ways of decoding: what a payload decodes to, or the error it fails with.
private func outcome(_ body: () throws(DecodeError) -> Receipt) -> Result<Receipt, DecodeError> {
    do throws(DecodeError) { return .success(try body()) } catch { return .failure(error) }
}

@Suite("A payload decoded from a dump's text")
struct ReceiptTextDecodingTests {
    let ecSigner = SigningIdentity.unverifiable(signatureLength: 64, certificates: [[0x30, 0x03, 0x02, 0x01, 0x01]])
    let t = Timestamp.parse("2024-03-01T12:00:00Z") ?? Timestamp(clampingMillis: 0)

    @Test("decodes as its bytes do, whatever it is: the same receipt or the same error at the same offset")
    func sameAsBytes() throws {
        let tx = JWSBuilder.Transaction(
            transactionID: "2000", bundleID: "com.x.app", productID: "gems", purchaseDate: t, signedDate: t)
        let token = try JWSBuilder.transaction(tx, with: ecSigner)
        let dots = token.split(separator: ".").map(String.init)
        let payloads = [
            token, "  \(token)\r\n", "\t" + dots[0] + ".e30." + dots[2], dots[0] + "." + dots[1],
            dots[0] + "." + dots[1] + ".c2l$", dots[0] + ".eyJ0cmFuc2FjdGlvbklkIjoi." + dots[2],
            token + "." + dots[2], "{\"signedPayload\":\"\(token)\"}", "", "   ", "{", "e30.e30.e30", "...",
            "MIIB", "  eyJ.x.y  ",
        ]
        for payload in payloads {
            let fromText = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(payload) }
            let fromBytes = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(Array(payload.utf8)) }
            #expect(fromText == fromBytes, "\(payload.prefix(40))")
        }
        var small = Limits()
        small.maxPayloadBytes = 64
        let tooLarge = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(token, limits: small) }
        let tooLargeBytes = outcome { () throws(DecodeError) in
            try ReceiptDecoder.decode(Array(token.utf8), limits: small)
        }
        #expect(tooLarge == tooLargeBytes)
        #expect((try? tooLarge.get()) == nil)
    }
}
