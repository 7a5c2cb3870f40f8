import IAPBasics

/// A value a custom rule can test. Absent values are `.null`: every comparison with null
/// is false except `is null`.
public enum FieldValue: Sendable, Equatable {
    case null
    case text(String)
    case number(Double)
    case time(Timestamp)
}

/// The fields custom rules may name, with their types (documented in Rules/README.md).
public enum ConditionField: String, Sendable, CaseIterable {
    case orderID = "order.order_id"
    case orderUserID = "order.user_id"
    case orderPlatform = "order.platform"
    case orderItemID = "order.item_id"
    case orderProductID = "order.product_id"
    case orderTransactionID = "order.transaction_id"
    case orderAmount = "order.amount"
    case orderCurrency = "order.currency"
    case orderEnvironment = "order.environment"
    case orderCreatedAt = "order.created_at"
    case orderHour = "order.hour"
    case receiptKind = "receipt.kind"
    case receiptEnvironment = "receipt.environment"
    case receiptAppID = "receipt.app_id"
    case receiptSignature = "receipt.signature"
    case receiptPurchaseCount = "receipt.purchase_count"
    case purchaseProductID = "purchase.product_id"
    case purchaseTransactionID = "purchase.transaction_id"
    case purchaseOriginalTransactionID = "purchase.original_transaction_id"
    case purchaseQuantity = "purchase.quantity"
    case purchaseType = "purchase.type"
    case purchaseOwnership = "purchase.ownership"
    case purchaseDate = "purchase.purchase_date"
    case purchaseExpiresDate = "purchase.expires_date"
    case purchaseAgeDays = "purchase.age_days"
    case userOrders = "user.orders"
    case userRefunds = "user.refunds"
    case eventReason = "event.reason"

    public enum Kind: Sendable {
        case text, number, time
    }

    public var kind: Kind {
        switch self {
        case .orderAmount, .orderHour, .receiptPurchaseCount, .purchaseQuantity, .purchaseAgeDays, .userOrders,
            .userRefunds:
            return .number
        case .orderCreatedAt, .purchaseDate, .purchaseExpiresDate:
            return .time
        default:
            return .text
        }
    }

    public var help: String {
        switch self {
        case .orderID: return "the app's order number"
        case .orderUserID: return "the credited account"
        case .orderPlatform: return "ios or android"
        case .orderItemID: return "the catalog item"
        case .orderProductID: return "the store product the order expected"
        case .orderTransactionID: return "the transaction the server recorded"
        case .orderAmount: return "what the order was worth, in major units"
        case .orderCurrency: return "ISO 4217 currency of the amount"
        case .orderEnvironment: return "production or sandbox"
        case .orderCreatedAt: return "when the order was credited"
        case .orderHour: return "hour of day (UTC, 0-23) the order was credited"
        case .receiptKind:
            return
                "apple-app-receipt, apple-legacy-receipt, apple-verify-receipt-json, apple-jws-transaction, google-purchase"
        case .receiptEnvironment: return "as the store wrote it: Production, Sandbox, Xcode, LocalTesting, Test, ..."
        case .receiptAppID: return "bundle id or package name"
        case .receiptSignature: return "valid, invalid, unsigned or unchecked"
        case .receiptPurchaseCount: return "how many purchases the receipt holds"
        case .purchaseProductID: return "product of the purchase picked for the order"
        case .purchaseTransactionID: return "its transaction id (Google: orderId)"
        case .purchaseOriginalTransactionID: return "its original transaction id"
        case .purchaseQuantity: return "its quantity"
        case .purchaseType: return "consumable, non_consumable, auto_renewable, non_renewing"
        case .purchaseOwnership: return "PURCHASED or FAMILY_SHARED"
        case .purchaseDate: return "when it was bought"
        case .purchaseExpiresDate: return "when its subscription period ends"
        case .purchaseAgeDays: return "days between the purchase and the order's credit"
        case .userOrders: return "how many credited orders the same user has in this run"
        case .userRefunds:
            return "refunds the store events of this run matched to the user's orders (with --store-events)"
        case .eventReason:
            return
                "why the store refunded the order's purchase: other, app-issue, remorse, fraud, friendly-fraud, chargeback, ..."
        }
    }
}
