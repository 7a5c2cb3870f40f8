import IAPBasics
import JSONText
import ReceiptFormats

/// The value of each custom-rule field for one order, its receipt and its picked purchase.
enum FieldValues {
    static func value(
        _ f: ConditionField, order: ScreenOrder, digest d: ReceiptDigest, purchase p: Purchase?,
        ordersOfUser: Int?, refundsOfUser: Int? = nil, eventReason: String? = nil
    ) -> FieldValue {
        func text(_ s: String?) -> FieldValue { s.map { .text($0) } ?? .null }
        func time(_ t: Timestamp?) -> FieldValue { t.map { .time($0) } ?? .null }
        switch f {
        case .orderID: return .text(order.orderID)
        case .orderUserID: return .text(order.userID)
        case .orderPlatform: return text(order.platform?.rawValue ?? d.platform.rawValue)
        case .orderItemID: return text(order.itemID)
        case .orderProductID: return text(order.expectedProductID)
        case .orderTransactionID: return text(order.transactionID)
        case .orderAmount: return order.amount.flatMap(Double.init).map { .number($0) } ?? .null
        case .orderCurrency: return text(order.currency)
        case .orderEnvironment: return .text(order.production ? "production" : "sandbox")
        case .orderCreatedAt: return .time(order.createdAt)
        case .orderHour:
            let ms = order.createdAt.millis % 86_400_000
            return .number(Double((ms < 0 ? ms + 86_400_000 : ms) / 3_600_000))
        case .receiptKind: return .text(d.kind.rawValue)
        case .receiptEnvironment: return text(d.environment)
        case .receiptAppID: return text(d.appID)
        case .receiptSignature: return .text(d.signature.verdict.rawValue)
        case .receiptPurchaseCount: return .number(Double(d.purchaseCount))
        case .purchaseProductID: return text(p?.productID)
        case .purchaseTransactionID: return text(p?.transactionID)
        case .purchaseOriginalTransactionID: return text(p?.originalTransactionID)
        case .purchaseQuantity: return p.map { .number(Double($0.quantity)) } ?? .null
        case .purchaseType: return text(p?.productType?.name)
        case .purchaseOwnership: return text(p?.ownership)
        case .purchaseDate: return time(p?.purchaseDate)
        case .purchaseExpiresDate: return time(p?.expiresDate)
        case .purchaseAgeDays:
            guard let bought = p?.purchaseDate else { return .null }
            return .number(Double(order.createdAt.millis - bought.millis) / 86_400_000)
        case .userOrders: return ordersOfUser.map { .number(Double($0)) } ?? .null
        case .userRefunds: return refundsOfUser.map { .number(Double($0)) } ?? .null
        case .eventReason: return text(eventReason)
        }
    }

    static func json(_ v: FieldValue) -> JSONValue {
        switch v {
        case .null: return .null
        case .text(let s): return .string(s)
        case .number(let d):
            if d == d.rounded(), abs(d) < 1e15 { return .number(String(Int64(d))) }
            return .number(String(d))
        case .time(let t): return .string(t.iso8601)
        }
    }
}
