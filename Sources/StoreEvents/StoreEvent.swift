import IAPBasics
import ReceiptFormats

/// One thing a store said after the credit (docs/store-events.md): an App Store Server Notification,
/// a transaction of Apple's refund history, a Google voided purchase, or a Google Real-time
/// developer notification — normalised, with where it was read.
public struct StoreEvent: Sendable {
    public enum Store: String, Sendable {
        case apple, google
    }

    /// What the event means for the orders that took its transaction.
    public enum Meaning: Sendable, Equatable {
        /// The store took the money back (or the entitlement): refund, revoke, void.
        case refund
        /// Apple gave a refunded purchase back (`REFUND_REVERSED`).
        case reversal
        /// The store charged for a transaction (`ONE_TIME_CHARGE`, `SUBSCRIBED`, `DID_RENEW`,
        /// `OFFER_REDEEMED` with one): what `reconcile` compares per transaction.
        case charge
        /// A customer asked Apple for a refund and Apple asks what we know (`CONSUMPTION_REQUEST`):
        /// what `consumption` answers.
        case consumptionRequest
        /// Anything else: read and counted by type.
        case other
    }

    public var store: Store
    /// As summary.json counts it, and (for refunds) as the finding's `event` says it: the Apple
    /// `notificationType` (`REFUND`, `REVOKE`, `TEST`, …), `refund-history`, `voided`,
    /// `rtdn-voided`, `rtdn-revoked`, `rtdn-subscription`, `rtdn-one-time-product`, `rtdn-test`.
    public var type: String
    public var meaning: Meaning
    /// One event however often it is logged: the same identity is the same event.
    public var identity: String
    /// Apple `transactionId`; Google `orderId` (a test purchase has none).
    public var transactionID: String?
    public var originalTransactionID: String?
    /// Google's purchase token.
    public var purchaseToken: String?
    public var productID: String?
    /// Apple: when the transaction was bought, and its price (from milliunits) and currency,
    /// for `reconcile`'s comparison per transaction.
    public var purchaseDate: Timestamp?
    public var price: DecimalAmount?
    public var currency: String?
    /// Bundle id or package name.
    public var appID: String?
    public var environment: String?
    /// When it happened: a refund's time (Apple `revocationDate`, Google `voidedTimeMillis`,
    /// RTDN `eventTimeMillis`), else when the store signed or sent it.
    public var at: Timestamp?
    /// Why the store refunded, in the finding's words (`other`, `app-issue`, `remorse`, …).
    public var reason: String?
    /// Who asked for a Google void: `user`, `developer`, `google`.
    public var source: String?
    /// Apple: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`; and the share refunded, in
    /// milliunits.
    public var revocationType: String?
    public var revocationPercentage: Int64?
    /// The signed App Store payload, to verify before the event is believed; nil for Google
    /// (unsigned: our server fetched it from Google).
    public var signed: Receipt?
    /// A consumption request's: Apple's `notificationUUID`, `data.consumptionRequestReason`,
    /// and of its transaction the `appAccountToken`, the product type and the expiry.
    public var notificationUUID: String?
    public var requestReason: String?
    public var accountToken: String?
    public var productType: ProductType?
    public var expiresDate: Timestamp?
    public var location: SourceLocation

    public init(store: Store, type: String, meaning: Meaning, identity: String, location: SourceLocation) {
        self.store = store
        self.type = type
        self.meaning = meaning
        self.identity = identity
        self.location = location
    }
}
