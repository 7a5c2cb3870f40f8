import IAPBasics
import ReceiptFormats

/// A customer asked Apple to refund an In-App Purchase, and Apple asks what we know
/// (`CONSUMPTION_REQUEST`, docs/consumption.md): answered within 12 hours of its signing.
public struct ConsumptionRequest: Sendable, Equatable {
    public var notificationUUID: String
    public var transactionID: String
    public var originalTransactionID: String?
    public var productID: String?
    /// As Apple's signed transaction says it; nil when it does not.
    public var productType: ProductType?
    /// The notification's `signedDate`.
    public var requestedAt: Timestamp
    /// `UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`.
    public var reason: String?
    /// The transaction's `appAccountToken`: the app's own id of the account, when it set one.
    public var accountToken: String?
    /// The transaction's expiry, when it states one (a non-renewing subscription's period end).
    public var expiresDate: Timestamp?
    /// When the transaction was bought, as Apple signed it.
    public var purchaseDate: Timestamp?

    /// Apple weighs an answer sent within this long of the request.
    public static let answerWindowMillis: Int64 = 12 * 3_600_000

    public init(
        notificationUUID: String, transactionID: String, requestedAt: Timestamp, originalTransactionID: String? = nil,
        productID: String? = nil, productType: ProductType? = nil, reason: String? = nil,
        accountToken: String? = nil, expiresDate: Timestamp? = nil, purchaseDate: Timestamp? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.transactionID = transactionID
        self.requestedAt = requestedAt
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.productType = productType
        self.reason = reason
        self.accountToken = accountToken
        self.expiresDate = expiresDate
        self.purchaseDate = purchaseDate
    }

    /// The last moment an answer counts: `signedDate` + 12 h.
    public var answerBy: Timestamp {
        Timestamp(clampingMillis: requestedAt.millis &+ Self.answerWindowMillis, hasMilliseconds: false)
    }

    /// `PUT` this path with the body.
    public var path: String { "/inApps/v2/transactions/consumption/\(transactionID)" }
}
