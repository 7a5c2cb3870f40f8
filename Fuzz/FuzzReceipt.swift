import IAPBasics
import ReceiptFormats
import ReceiptVerification

// Every receipt kind through ReceiptDecoder (DER app receipts and PKCS#7, base64 of any,
// iOS 6 plists, verifyReceipt JSON, JWS, Google purchases), then ReceiptVerifier against
// the sample trust (Apple roots, a Google key), so hostile certificates, keys and
// signatures carried inside receipts reach OpenSSL. Also PKCS7.parse, JWSDecoder and
// GooglePurchaseDecoder directly.
#if canImport(Glibc)
    import Glibc
#endif

/// The samples' trust directory: $IAPSCREEN_TRUST, else samples/Rules/trust beside Fuzz/.
let verifier: ReceiptVerifier = {
    let trust = getenv("IAPSCREEN_TRUST").map { String(cString: $0) } ?? "samples/Rules/trust"
    let apple = ["apple-root-ca-g3.cer", "apple-root-ca.cer", "itunes-store-ca.cer"].map { "\(trust)/apple/\($0)" }
    let google = ["com.example.game": "\(trust)/google/com.example.game.pem"]
    do {
        return try ReceiptVerifier(appleAnchorFiles: apple, googleKeyFiles: google)
    } catch {
        fatalError("cannot load the sample trust from \(trust) (set IAPSCREEN_TRUST): \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReceipt(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lim = limits(for: data, size)
    if let receipt = try? ReceiptDecoder.decode(bytes, limits: lim) {
        _ = verifier.verify(receipt)
    }
    if size > 0, data[0] == 0x30 { _ = try? PKCS7.parse(bytes, limits: lim) }
    if JWSDecoder.looksLike(bytes) { _ = try? JWSDecoder.decode(bytes, limits: lim) }
    if size > 0, data[0] == 0x7B { _ = try? GooglePurchaseDecoder.decode(bytes, limits: lim) }
    return 0
}
