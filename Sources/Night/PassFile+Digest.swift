import IAPBasics
import ReceiptFormats
import Screening

/// A receipt's digest as a pass file keeps it: what an order with several candidate
/// purchases (or a rule on `user.*`) is judged on once the claims are made.
extension PassFile {
    func put(_ d: ReceiptDigest) throws(Failure) {
        try put(d.kind.rawValue)
        try put(d.platform.rawValue)
        try put(d.jwsType?.rawValue)
        try put(d.environment)
        try put(d.appID)
        try put(d.status)
        try put(d.signature.verdict.rawValue)
        try put(d.signature.reason)
        try put(d.forgery)
        try put(d.purchaseCount)
        try put(d.candidates.count)
        for p in d.candidates { try put(p) }
        try put(d.holdsOrderTransaction) { (b) throws(Failure) in try put(b) }
        try put(d.products.count)
        for p in d.products { try put(p) }
    }

    func digest() throws(Failure) -> ReceiptDigest {
        let kind = try rawValue(Receipt.Kind.self)
        let platform = try rawValue(Platform.self)
        let jwsType = try optionalRawValue(Receipt.JWSType.self)
        let environment = try optionalString()
        let appID = try optionalString()
        let status = try optionalInt64()
        let verdict = try rawValue(SignatureStatus.Verdict.self)
        let reason = try string()
        let forgery = try optionalString()
        let purchaseCount = try int()
        var candidates: [Purchase] = []
        for _ in 0..<(try count()) { candidates.append(try purchase()) }
        let holds = try optional { () throws(Failure) in try bool() }
        var products: [String] = []
        for _ in 0..<(try count()) { products.append(try string()) }
        return ReceiptDigest(
            kind: kind, platform: platform, jwsType: jwsType, environment: environment, appID: appID, status: status,
            signature: SignatureStatus(verdict, reason), forgery: forgery, purchaseCount: purchaseCount,
            candidates: candidates, holdsOrderTransaction: holds, products: products)
    }

    /// A purchase without its `extras` (a digest keeps none).
    private func put(_ p: Purchase) throws(Failure) {
        for s in [p.productID, p.transactionID, p.originalTransactionID, p.webOrderLineItemID] { try put(s) }
        try put(p.quantity)
        for t in [p.purchaseDate, p.originalPurchaseDate, p.expiresDate, p.cancellationDate] {
            try put(t) { (t) throws(Failure) in
                try put(t.millis)
                try put(t.hasMilliseconds)
            }
        }
        try put(p.productType) { (t) throws(Failure) in
            switch t {
            case .consumable: try put(0 as UInt8)
            case .nonConsumable: try put(1 as UInt8)
            case .autoRenewable: try put(2 as UInt8)
            case .nonRenewing: try put(3 as UInt8)
            case .unknown(let raw):
                try put(4 as UInt8)
                try put(raw)
            }
        }
        for s in [p.ownership, p.accountToken, p.purchaseToken] { try put(s) }
        try put(p.purchaseState)
        try put(p.purchaseType)
    }

    private func purchase() throws(Failure) -> Purchase {
        var p = Purchase()
        p.productID = try optionalString()
        p.transactionID = try optionalString()
        p.originalTransactionID = try optionalString()
        p.webOrderLineItemID = try optionalString()
        p.quantity = try int64()
        var times: [Timestamp?] = []
        for _ in 0..<4 {
            times.append(
                try optional { () throws(Failure) in
                    let millis = try int64()
                    return Timestamp(clampingMillis: millis, hasMilliseconds: try bool())
                })
        }
        (p.purchaseDate, p.originalPurchaseDate, p.expiresDate, p.cancellationDate) = (
            times[0], times[1], times[2], times[3]
        )
        p.productType = try optional { () throws(Failure) -> ProductType in
            switch try uint8() {
            case 0: return .consumable
            case 1: return .nonConsumable
            case 2: return .autoRenewable
            case 3: return .nonRenewing
            case 4: return .unknown(try string())
            case let b: throw Failure(description: "a pass file holds \(b) for a product type")
            }
        }
        p.ownership = try optionalString()
        p.accountToken = try optionalString()
        p.purchaseToken = try optionalString()
        p.purchaseState = try optionalInt64()
        p.purchaseType = try optionalInt64()
        return p
    }
}
