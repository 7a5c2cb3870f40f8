import DumpFormats
import IAPBasics
import ReceiptFormats

/// What the dumps and the ledger know of a request's transaction, gathered before it is answered.
public struct ConsumptionFacts: Sendable, Equatable {
    /// The order that first took the transaction (never a replay of it).
    public struct TakingOrder: Sendable, Equatable {
        public var orderID: String
        public var userID: String
        /// As tonight's dump says it; an order known only from the ledger was credited.
        public var status: OrderStatus
        /// Where the order was seen: `tonight's dump` or `the ledger`.
        public var source: String
        /// The dump's `consumed`, when tonight's dump gives it.
        public var consumed: ConsumedShare?
        /// When the purchase was made (the start of a non-renewing period).
        public var purchasedAt: Timestamp?
        /// The catalog's word on the order's item.
        public var catalogType: ProductType?
        public var sampleContent: Bool
        public var periodDays: Int?
        /// The expiry the order's receipt states, if any.
        public var receiptExpiry: Timestamp?

        public init(
            orderID: String, userID: String, status: OrderStatus, source: String, consumed: ConsumedShare? = nil,
            purchasedAt: Timestamp? = nil, catalogType: ProductType? = nil, sampleContent: Bool = false,
            periodDays: Int? = nil, receiptExpiry: Timestamp? = nil
        ) {
            self.orderID = orderID
            self.userID = userID
            self.status = status
            self.source = source
            self.consumed = consumed
            self.purchasedAt = purchasedAt
            self.catalogType = catalogType
            self.sampleContent = sampleContent
            self.periodDays = periodDays
            self.receiptExpiry = receiptExpiry
        }
    }

    public var order: TakingOrder?
    /// The order's user, else the user whose id is the request's account token; nil: no one known.
    public var userID: String?
    /// How the user was found, for `why` (`the order's user`, `the account token`).
    public var userSource: String?
    /// The user's latest known consent and where it was seen.
    public var consent: OrderConsent?
    public var consentSource: String?
    /// The user's refunds so far: the ledger's and tonight's.
    public var refunds: Int
    /// A reviewer's verdict on the order (`fraud`, `legit`, …).
    public var verdict: String?

    public init(
        order: TakingOrder? = nil, userID: String? = nil, userSource: String? = nil, consent: OrderConsent? = nil,
        consentSource: String? = nil, refunds: Int = 0, verdict: String? = nil
    ) {
        self.order = order
        self.userID = userID
        self.userSource = userSource
        self.consent = consent
        self.consentSource = consentSource
        self.refunds = refunds
        self.verdict = verdict
    }
}
