import IAPBasics
import ReceiptFormats

/// What the rules need of one order's receipt, small enough to keep for every order of a
/// night: the receipt-level facts and only the purchases that could belong to the order.
public struct ReceiptDigest: Sendable {
    public var kind: Receipt.Kind
    public var platform: Platform
    public var jwsType: Receipt.JWSType?
    public var environment: String?
    public var appID: String?
    public var status: Int64?
    public var signature: SignatureStatus
    /// Why a verifyReceipt JSON contradicts its own signed receipt, if it does.
    public var forgery: String?
    public var purchaseCount: Int
    /// The purchases that may be this order's: the one with the order's transaction id,
    /// else every purchase of the expected product.
    public var candidates: [Purchase]
    /// When the order names a transaction: whether the receipt holds it.
    public var holdsOrderTransaction: Bool?
    /// Distinct products in the receipt (a few), for the evidence of a mismatch.
    public var products: [String]

    public init(receipt: borrowing Receipt, signature: SignatureStatus, forgery: String? = nil, for order: ScreenOrder)
    {
        kind = receipt.kind
        platform = receipt.platform
        jwsType = receipt.jwsType
        environment = receipt.environment
        appID = receipt.appID
        status = receipt.status
        self.signature = signature
        self.forgery = forgery
        purchaseCount = receipt.purchases.count
        var seen: [String] = []
        // By index: a purchase taken out of the list whole retains its every string.
        for i in receipt.purchases.indices {
            guard let id = receipt.purchases[i].productID, !seen.contains(id) else { continue }
            if seen.count < 5 { seen.append(id) }
        }
        products = seen
        func slim(_ p: Purchase) -> Purchase {
            var s = p
            s.extras = []
            return s
        }
        if let txn = order.transactionID {
            let match = receipt.purchases.first { $0.transactionID == txn }
            holdsOrderTransaction = match != nil
            candidates = match.map { [slim($0)] } ?? []
        } else {
            holdsOrderTransaction = nil
            candidates =
                order.expectedProductID.map { expected in
                    receipt.purchases.filter { $0.productID == expected }.map(slim)
                } ?? []
        }
    }

    /// A digest from its parts, as one was kept on disk between the passes over a big night.
    public init(
        kind: Receipt.Kind, platform: Platform, jwsType: Receipt.JWSType?, environment: String?, appID: String?,
        status: Int64?, signature: SignatureStatus, forgery: String?, purchaseCount: Int, candidates: [Purchase],
        holdsOrderTransaction: Bool?, products: [String]
    ) {
        self.kind = kind
        self.platform = platform
        self.jwsType = jwsType
        self.environment = environment
        self.appID = appID
        self.status = status
        self.signature = signature
        self.forgery = forgery
        self.purchaseCount = purchaseCount
        self.candidates = candidates
        self.holdsOrderTransaction = holdsOrderTransaction
        self.products = products
    }

    /// Sandbox, Xcode, LocalTesting, or a Google test purchase.
    public var isSandbox: Bool {
        if status == 21007 { return true }
        switch environment?.lowercased() {
        case "sandbox", "productionsandbox", "xcode", "localtesting", "test": return true
        default: break
        }
        return candidates.contains { $0.purchaseType == 0 }
    }
}

/// The receipt of an order, as far as it could be read.
public enum ReceiptState: Sendable {
    case missing
    case undecodable(DecodeError)
    case decoded(ReceiptDigest)
}
