import IAPBasics
import JSONText
import ReceiptFormats

/// The JSON shape `decode` prints for a receipt (docs/receipts.md): the documented keys first,
/// then what else the store said.
public enum ReceiptJSON {
    public static func object(_ receipt: Receipt, line: Int?, signature: SignatureStatus, forgery: String? = nil)
        -> JSONObject
    {
        var o = JSONObject()
        if let line { o.members.append(("line", .integer(line))) }
        o.members.append(("kind", .string(receipt.kind.rawValue)))
        if let t = receipt.jwsType { o.members.append(("jws_type", .string(t.rawValue))) }
        o.members.append(("platform", .string(receipt.platform.rawValue)))
        o.members.append(("environment", .string(orNull: receipt.environment)))
        if !receipt.environmentIsSigned { o.members.append(("environment_verified", .bool(false))) }
        o.members.append(("app_id", .string(orNull: receipt.appID)))
        o.members.append(("signature", .string(signature.verdict.rawValue)))
        o.members.append(("signature_reason", .string(signature.reason)))
        if let forgery { o.members.append(("forgery", .string(forgery))) }
        o.members.append(("purchases", .array(receipt.purchases.map { .object(purchase($0)) })))
        if let v = receipt.appItemID { o.members.append(("app_item_id", .integer(v))) }
        if let v = receipt.appVersion { o.members.append(("app_version", .string(v))) }
        if let v = receipt.originalAppVersion { o.members.append(("original_app_version", .string(v))) }
        if let v = receipt.creationDate { o.members.append(("creation_date", .string(v.iso8601))) }
        if let v = receipt.status { o.members.append(("status", .integer(v))) }
        o.members.append(contentsOf: receipt.extras)
        if case .verifyReceipt(let embedded?) = receipt.signed {
            let inner = embedded.receipt
            o.members.append(("embedded_receipt", .object(object(inner, line: nil, signature: .withoutTrust(inner)))))
        }
        return o
    }

    public static func purchase(_ p: Purchase) -> JSONObject {
        var o = JSONObject()
        func date(_ t: Timestamp?) -> JSONValue { t.map { .string($0.iso8601) } ?? .null }
        o.members.append(("product_id", .string(orNull: p.productID)))
        o.members.append(("transaction_id", .string(orNull: p.transactionID)))
        o.members.append(("original_transaction_id", .string(orNull: p.originalTransactionID)))
        o.members.append(("quantity", .integer(p.quantity)))
        o.members.append(("purchase_date", date(p.purchaseDate)))
        o.members.append(("expires_date", date(p.expiresDate)))
        o.members.append(("cancellation_date", date(p.cancellationDate)))
        if let v = p.webOrderLineItemID { o.members.append(("web_order_line_item_id", .string(v))) }
        if let v = p.originalPurchaseDate { o.members.append(("original_purchase_date", .string(v.iso8601))) }
        if let v = p.productType { o.members.append(("product_type", .string(v.name))) }
        if let v = p.ownership { o.members.append(("ownership", .string(v))) }
        if let v = p.accountToken { o.members.append(("account_token", .string(v))) }
        if let v = p.purchaseToken { o.members.append(("purchase_token", .string(v))) }
        if let v = p.purchaseState { o.members.append(("purchase_state", .integer(v))) }
        if let v = p.purchaseType { o.members.append(("purchase_type", .integer(v))) }
        o.members.append(contentsOf: p.extras)
        return o
    }

    public static func error(_ e: DecodeError, line: Int) -> JSONObject {
        JSONObject([
            ("line", .integer(line)), ("error", .string(e.code)), ("reason", .string(e.reason)),
            ("offset", .integer(e.offset)),
        ])
    }
}
