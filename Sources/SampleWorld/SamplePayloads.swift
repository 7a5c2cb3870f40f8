import IAPBasics
import ReceiptBuilder

/// The receipt text a planned order's proof becomes, signed with the world's keys.
enum SamplePayloads {
    static func payload(_ proof: PlannedOrder.Proof, pki: TestPKI) throws -> String? {
        switch proof {
        case .none, .sameAs: return nil
        case .garbage(let text): return text
        case .app(let spec): return Base64.encode(try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner))
        case .jws(let tx): return try JWSBuilder.transaction(tx, with: pki.jwsSigner)
        case .google(let data, let wrapper):
            return try GooglePurchaseBuilder.payload(data, with: pki.googleSigner, wrapper: wrapper)
        case .xcode(let spec): return Base64.encode(try AppReceiptBuilder.build(spec, signedBy: pki.xcodeReceiptSigner))
        case .tampered(let spec):
            var der = try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)
            // The app version's last character, inside the signed payload: still decodes, no longer verifies.
            if let i = firstIndex(of: Array(spec.appVersion.utf8), in: der) {
                der[i + spec.appVersion.utf8.count - 1] ^= 0x01
            }
            return Base64.encode(der)
        case .verifyReceipt(let spec, let forged):
            let der = try AppReceiptBuilder.build(spec, signedBy: pki.appReceiptSigner)
            var response = VerifyReceiptBuilder.Response(
                bundleID: spec.bundleID, appItemID: spec.appItemID,
                receiptCreationDate: spec.creationDate)
            response.latestReceiptInfo = spec.purchases.suffix(1).map { p in
                var t = VerifyReceiptBuilder.Transaction(
                    productID: p.productID, transactionID: p.transactionID,
                    purchaseDate: p.purchaseDate)
                t.expiresDate = p.expiresDate
                return t
            }
            response.latestReceipt = Base64.encode(der)
            guard forged, let last = spec.purchases.last else { return response.text }
            let year2029 = Timestamp(clampingMillis: 1_861_920_000_000, hasMilliseconds: false)
            return response.rewritingClaims(of: last.transactionID) { $0.expiresDate = year2029 }.text
        }
    }

    /// The payload of every order of `orders`, a replay's copied from the order it replays.
    static func payloads(of orders: [PlannedOrder], groupStart: [Int], pki: TestPKI) throws -> [String?] {
        var out: [String?] = []
        out.reserveCapacity(orders.count)
        for (i, o) in orders.enumerated() {
            if case .sameAs(let k) = o.proof {
                out.append(out[groupStart[i] + k])
            } else {
                out.append(try payload(o.proof, pki: pki))
            }
        }
        return out
    }

    /// The first place `needle` stands in `haystack` (the payload comes before the certificates).
    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<i + needle.count].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
