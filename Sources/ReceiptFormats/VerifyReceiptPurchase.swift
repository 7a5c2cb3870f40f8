import IAPBasics
import JSONText

// One `in_app` / `latest_receipt_info` entry, and an iOS 6 `receipt` itself
// [formats.md §3; GOIAP `InApp`, `ReceiptForIOS6`; RevenueCat `verifyReceiptSample1.txt`].
// Real responses write every scalar as a string; numbers are accepted too.
//
//   key                            example                          -> Purchase
//   product_id                     "com.example.coins100"           productID
//   transaction_id                 "1000000700123456"               transactionID
//   original_transaction_id        "1000000700123456"               originalTransactionID
//   web_order_line_item_id         "1000000054123456"               webOrderLineItemID
//   quantity                       "1"                              quantity (absent: 1)
//   purchase_date(_ms)             "2020-07-14 19:36:40 Etc/GMT"    purchaseDate
//                                  / "1594755400000"                (`_ms` preferred)
//   original_purchase_date(_ms)                                     originalPurchaseDate
//   expires_date(_ms)              iOS 6: `expires_date` is ms      expiresDate
//   cancellation_date(_ms)                                          cancellationDate
//   in_app_ownership_type          PURCHASED | FAMILY_SHARED        ownership
//   app_account_token              UUID set by the app              accountToken
//   is_trial_period, is_in_intro_offer_period, cancellation_reason,
//   is_upgraded, promotional_offer_id, subscription_group_identifier extras, as written
enum VerifyReceiptPurchase {
    static let extraKeys = ExtraName.list([
        "is_trial_period", "is_in_intro_offer_period", "cancellation_reason", "is_upgraded",
        "promotional_offer_id", "subscription_group_identifier",
    ])

    static func read(_ f: StoreJSONFields<String>) throws(DecodeError) -> Purchase {
        var p = Purchase()
        p.productID = try f.text("product_id")
        p.transactionID = try f.text("transaction_id")
        p.originalTransactionID = try f.text("original_transaction_id")
        p.webOrderLineItemID = try f.text("web_order_line_item_id")
        p.quantity = try f.count("quantity") ?? 1
        p.purchaseDate = try f.appleDate("purchase_date")
        p.originalPurchaseDate = try f.appleDate("original_purchase_date")
        p.expiresDate = try f.appleDate("expires_date")
        p.cancellationDate = try f.appleDate("cancellation_date")
        p.ownership = try f.text("in_app_ownership_type")
        p.accountToken = try f.text("app_account_token")
        try f.copy(extraKeys, into: &p.extras)
        return p
    }

    /// The response's purchase lists as one, one entry per transaction id. Lists come
    /// oldest view first; an entry of a later list replaces the earlier one in place,
    /// because `latest_receipt_info` is Apple's newest view of each transaction (it
    /// carries renewals, refunds and upgrades that the receipt snapshot in `in_app` may
    /// predate). Entries without a transaction id are all kept.
    static func merge(_ lists: [[Purchase]], limits: Limits, at offset: Int) throws(DecodeError) -> [Purchase] {
        var merged: [Purchase] = []
        var position: [String: Int] = [:]
        for list in lists {
            for p in list {
                if let id = p.transactionID, let at = position[id] {
                    merged[at] = p
                    continue
                }
                guard merged.count < limits.maxPurchases else {
                    let reason = "more than \(limits.maxPurchases) purchases in one response"
                    throw DecodeError("too-many-purchases", reason, at: offset)
                }
                if let id = p.transactionID { position[id] = merged.count }
                merged.append(p)
            }
        }
        return merged
    }
}
