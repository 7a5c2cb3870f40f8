import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import StoreCrypto

/// Signature checks per second on one core, for each receipt kind, with the chain cache
/// on and off (the answers are the same; only the work differs).
func runVerifyBenchmark(receipts count: Int) -> [String] {
    let t = Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false)
    let pki: TestPKI
    let key: PublicKey
    do {
        pki = try TestPKI()
        key = try PublicKey(pem: try pki.googlePublicKeyPEM())
    } catch {
        return ["cannot make a test PKI: \(error)"]
    }
    var kinds: [(String, [Receipt])] = [
        ("PKCS#7 app receipt (10 entries)", []), ("App Store JWS", []), ("Google purchase", []),
    ]
    for r in 0..<50 {
        var spec = AppReceiptBuilder.Spec(
            bundleID: "com.example.game", appVersion: "4.2", appItemID: 1, creationDate: t)
        for k in 0..<10 {
            spec.purchases.append(
                AppReceiptBuilder.InAppPurchase(
                    productID: "p\(k)", transactionID: String(1_000_000 + r * 10 + k), purchaseDate: t))
        }
        let tx = JWSBuilder.Transaction(
            transactionID: String(2_000_000 + r), bundleID: "com.example.game", productID: "p",
            purchaseDate: t, signedDate: t)
        let google = GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.\(r)", packageName: "com.example.game", productID: "p",
            purchaseTime: t, purchaseToken: "tok\(r)")
        guard let app = try? ReceiptDecoder.decode(try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)),
            let jws = try? ReceiptDecoder.decode(Array(try JWSBuilder.transaction(tx, with: pki.jwsSigner).utf8)),
            let play = try? ReceiptDecoder.decode(
                Array(
                    try GooglePurchaseBuilder.payload(google, with: pki.googleSigner, wrapper: .dataAndSignature).utf8))
        else { return ["cannot build receipts"] }
        kinds[0].1.append(app)
        kinds[1].1.append(jws)
        kinds[2].1.append(play)
    }
    var lines = ["verify: receipts/s on one core (\(count) checks per kind)"]
    for caching in [true, false] {
        guard
            let verifier = try? ReceiptVerifier(
                appleAnchors: pki.appleAnchors, googleKeys: ["com.example.game": key],
                cachesChains: caching)
        else { return ["cannot build a verifier"] }
        for (name, receipts) in kinds {
            let n = caching ? count : max(count / 20, 50)
            var valid = 0
            let start = SystemClock.monotonicSeconds()
            for i in 0..<n where verifier.verify(receipts[i % receipts.count]).status.verdict == .valid { valid += 1 }
            let rate = Double(n) / (SystemClock.monotonicSeconds() - start)
            lines.append("  \(name), chain cache \(caching ? "on " : "off"): \(Int(rate))/s (\(valid)/\(n) valid)")
        }
    }
    return lines
}
