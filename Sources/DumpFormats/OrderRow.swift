import IAPBasics

/// One row of an orders dump, typed (docs/inputs.md's field table). Values are trimmed of
/// surrounding whitespace; empty optional values are nil.
public struct OrderRow: Sendable, Equatable {
    public var orderID: String
    public var userID: String
    public var createdAt: Timestamp
    /// nil when the dump does not say; then the receipt does.
    public var platform: OrderPlatform?
    public var itemID: String?
    public var productID: String?
    public var transactionID: String?
    /// A decimal in major units as written (`4.99`), checked but not converted.
    public var amount: String?
    /// Upper-case three-letter code.
    public var currency: String?
    public var status: OrderStatus
    /// nil when the dump does not say; then `--environment` applies.
    public var environment: OrderEnvironment?
    /// The payload as received.
    public var receipt: String?
    /// How much of the purchase the customer has used up; nil when the dump does not say.
    public var consumed: ConsumedShare?
    /// Whether the customer agreed that we share consumption data with the store; nil: unknown.
    public var consent: OrderConsent?
    public var location: SourceLocation

    public init(
        orderID: String, userID: String, createdAt: Timestamp, platform: OrderPlatform? = nil,
        itemID: String? = nil, productID: String? = nil, transactionID: String? = nil,
        amount: String? = nil, currency: String? = nil, status: OrderStatus = .credited,
        environment: OrderEnvironment? = nil, receipt: String? = nil, consumed: ConsumedShare? = nil,
        consent: OrderConsent? = nil, location: SourceLocation
    ) {
        self.orderID = orderID
        self.userID = userID
        self.createdAt = createdAt
        self.platform = platform
        self.itemID = itemID
        self.productID = productID
        self.transactionID = transactionID
        self.amount = amount
        self.currency = currency
        self.status = status
        self.environment = environment
        self.receipt = receipt
        self.consumed = consumed
        self.consent = consent
        self.location = location
    }
}

/// One row of a receipts dump: joined to its order on `orderID`.
public struct ReceiptRow: Sendable, Equatable {
    public var orderID: String
    public var receipt: String
    public var receivedAt: Timestamp?
    public var location: SourceLocation

    public init(orderID: String, receipt: String, receivedAt: Timestamp? = nil, location: SourceLocation) {
        self.orderID = orderID
        self.receipt = receipt
        self.receivedAt = receivedAt
        self.location = location
    }
}
