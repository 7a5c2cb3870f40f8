import IAPBasics
import ReceiptBuilder
import ReceiptFormats

#if canImport(Glibc)
    import Glibc
#endif

/// App receipts of about 10 KB (base64) with ten in-app entries, decoded on one core.
func runDecodeBenchmark(receipts count: Int) -> [String] {
    let t = Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false)
    let pki: TestPKI
    do { pki = try TestPKI() } catch { return ["cannot make a test PKI: \(error)"] }
    var payloads: [[UInt8]] = []
    for r in 0..<64 {
        var spec = AppReceiptBuilder.Spec(
            bundleID: "com.example.game", appVersion: "4.2", appItemID: 1_234_567_890, creationDate: t)
        for k in 0..<10 {
            var p = AppReceiptBuilder.InAppPurchase(
                productID: "com.example.game.product\(k)", transactionID: String(160_000_000_000_000 + r * 100 + k),
                purchaseDate: Timestamp(clampingMillis: t.millis - Int64(k) * 86_400_000, hasMilliseconds: false))
            p.productTypeCode = Int64(k % 4)
            p.webOrderLineItemID = Int64(200_000_000 + k)
            if k % 4 == 3 { p.expiresDate = t }
            spec.purchases.append(p)
        }
        guard let der = try? AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner) else {
            return ["cannot build receipts"]
        }
        payloads.append(Array(Base64.encode(der).utf8))
    }
    let averageBase64 = payloads.map(\.count).reduce(0, +) / payloads.count
    let (seconds, purchases) = timeDecoding(payloads, count)
    return [
        "decode: \(count) app receipts of \(averageBase64) bytes (base64, 10 in-app entries, 3 certificates), one core",
        "  \(Int(Double(count) / seconds)) receipts/s, \(String(format2(Double(count) * Double(averageBase64) / seconds / 1e6))) MB/s, \(purchases / max(count, 1)) purchases each",
    ] + decodeJWSTransactions(count, pki: pki, at: t)
}

/// StoreKit 2 transactions as the screen world signs them (ES256, an x5c chain of three,
/// a payload of sixteen fields), decoded on one core: most receipts of a night are these.
private func decodeJWSTransactions(_ count: Int, pki: TestPKI, at t: Timestamp) -> [String] {
    var payloads: [[UInt8]] = []
    for r in 0..<64 {
        var tx = JWSBuilder.Transaction(
            transactionID: String(100_000_000_000_000 + r), bundleID: "com.example.game",
            productID: "com.example.game.gems\(r)", type: r % 2 == 0 ? "Consumable" : "Non-Consumable",
            purchaseDate: t, signedDate: t)
        tx.price = 9990
        tx.currency = "USD"
        guard let jws = try? JWSBuilder.transaction(tx, with: pki.jwsSigner) else { return ["cannot build a JWS"] }
        payloads.append(Array(jws.utf8))
    }
    let averageLength = payloads.map(\.count).reduce(0, +) / payloads.count
    let (seconds, purchases) = timeDecoding(payloads, count)
    return [
        "decode: \(count) App Store JWS transactions of \(averageLength) bytes (ES256, 3 certificates), one core",
        "  \(Int(Double(count) / seconds)) receipts/s, \(purchases / max(count, 1)) purchases each",
    ]
}

/// Decodes `count` payloads, taking `payloads` in turn: the seconds it took and the purchases found.
private func timeDecoding(_ payloads: [[UInt8]], _ count: Int) -> (seconds: Double, purchases: Int) {
    var purchases = 0
    let start = SystemClock.monotonicSeconds()
    for i in 0..<count {
        if let r = try? ReceiptDecoder.decode(payloads[i % payloads.count]) { purchases += r.purchases.count }
    }
    return (SystemClock.monotonicSeconds() - start, purchases)
}

func format2(_ x: Double) -> String {
    let v = (x * 100).rounded() / 100
    return String(v)
}
