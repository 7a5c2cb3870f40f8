import ReceiptFormats
import ReceiptVerification
import Testing

@Suite("Receipt verification")
struct ReceiptVerifierTests {
    @Test("without trust, an unsigned Google purchase is unsigned")
    func unsignedGoogle() {
        let r = Receipt(kind: .googlePurchase, platform: .android, signed: .google(originalJSON: [], signature: nil))
        #expect(ReceiptVerifier().verify(r).status.verdict == .unsigned)
    }
}
