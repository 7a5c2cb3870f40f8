import IAPBasics
import JSONText

// INAPP_PURCHASE_DATA, `Purchase.getOriginalJson()` [formats.md §5; PBL `Purchase`;
// https://developer.android.com/reference/com/android/billingclient/api/Purchase].
//
//   key                    example                              -> Receipt / Purchase
//   orderId                "GPA.1234-5678-9012-34567"           transactionID; "" or absent: a test
//                          (renewals "GPA.…..0", "..1")          purchase, environment `Test`
//   packageName            "com.example.app"                    Receipt.appID
//   productId | productIds ["sku"] (first)                      productID
//   purchaseTime           1594755400000 (epoch ms)             purchaseDate
//   purchaseState          0 purchased, 1 cancelled, 2/4 pending purchaseState, as written
//   purchaseType           0 test, 1 promo, 2 rewarded          purchaseType (0: environment `Test`)
//   purchaseToken | token  opaque                               purchaseToken
//   obfuscatedAccountId    the app's user id                    accountToken
//   quantity               1                                    quantity (absent: 1)
//   obfuscatedProfileId, autoRenewing, acknowledged, developerPayload   extras, as written
enum GooglePurchaseData {
    static let extraKeys = ExtraName.list(["obfuscatedProfileId", "autoRenewing", "acknowledged", "developerPayload"])

    /// `storedAsObjectIn`: the key that held originalJson as an object, not as its text.
    static func receipt(
        _ f: StoreJSONFields<String>, originalJSON: [UInt8], signature: [UInt8]?,
        storedAsObjectIn: String? = nil
    ) throws(DecodeError) -> Receipt {
        var p = Purchase()
        p.transactionID = try f.text("orderId")
        p.productID = try f.has("productId") ? f.text("productId") : firstProductID(f)
        p.purchaseDate = try f.epochMillis("purchaseTime")
        p.purchaseState = try f.integer("purchaseState")
        p.purchaseType = try f.integer("purchaseType")
        p.purchaseToken = try f.text(first: "purchaseToken", "token")
        p.accountToken = try f.text("obfuscatedAccountId")
        p.quantity = try f.count("quantity") ?? 1
        try f.copy(extraKeys, into: &p.extras)

        var receipt = Receipt(
            kind: .googlePurchase, platform: .android,
            signed: .google(
                originalJSON: originalJSON, signature: signature,
                storedAsObjectIn: storedAsObjectIn))
        if storedAsObjectIn != nil { receipt.extras.append(("original_json_was_object", .bool(true))) }
        receipt.appID = try f.text("packageName")
        receipt.environment = p.transactionID == nil || p.purchaseType == 0 ? "Test" : "Production"
        receipt.purchases = [p]
        return receipt
    }

    private static func firstProductID(_ f: StoreJSONFields<String>) throws(DecodeError) -> String? {
        guard let v = try f.value("productIds") else { return nil }
        guard case .array(let ids) = v else {
            throw f.fail("bad-field-type", "expected a list of product ids, found \(v.kindName)", at: "productIds")
        }
        guard let first = ids.first else { return nil }
        guard case .string(let id) = first, !id.isEmpty else {
            let reason = "\(f.name(of: "productIds"))[0]: expected a product id, found \(first.kindName)"
            throw DecodeError(
                "bad-field-type", reason, at: f.origin.offset(of: f.path + [.key("productIds"), .index(0)]))
        }
        return id
    }
}
