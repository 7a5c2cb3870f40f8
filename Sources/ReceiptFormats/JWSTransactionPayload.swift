import IAPBasics
import JSONText

// JWSTransactionDecodedPayload [formats.md §4.3; ASL-py `models/JWSTransactionDecodedPayload.py`].
// Dates are epoch ms numbers; Xcode writes fractions of a ms, truncated here.
//
//   key                        example                              -> Receipt / Purchase
//   transactionId              "2000000123456789"                   transactionID
//   originalTransactionId      "2000000123456789"                   originalTransactionID
//   webOrderLineItemId         "2000000012345678"                   webOrderLineItemID
//   bundleId                   "com.example.app"                    Receipt.appID
//   productId                  "com.example.coins100"               productID
//   type                       Consumable | Non-Consumable |        productType
//                              Auto-Renewable Subscription | Non-Renewing Subscription
//   purchaseDate               1698148900000                        purchaseDate
//   originalPurchaseDate                                            originalPurchaseDate
//   expiresDate                                                     expiresDate
//   revocationDate                                                  cancellationDate
//   signedDate                                                      Receipt.creationDate, JWSSigned.signedDate
//   quantity                   1                                    quantity (absent: 1)
//   appAccountToken            UUID                                 accountToken
//   inAppOwnershipType         PURCHASED | FAMILY_SHARED            ownership
//   environment                Production | Sandbox | Xcode | LocalTesting   Receipt.environment
//   appAppleId (also appItemID)                                     Receipt.appItemID, extras
//   revocationReason, revocationType, revocationPercentage (milliunits: 50000 = 50 %),
//   offerType, storefront, price (milliunits), currency, transactionReason, appTransactionId,
//   subscriptionGroupIdentifier                                     extras, as written
// Without a `transactionId` (a payload of a few fields) there is no purchase: the
// purchase's fields that are there go to the receipt's extras, as written.
//
// The same fields, decoded, are what Apple's server libraries return and servers store
// (`JWSTransactionDecodedPayload` as JSON, no JWS around it). The libraries' models also
// name the raw enum values `rawType`, `rawEnvironment`, `rawInAppOwnershipType`; a stored
// model may carry only those, so each is read when its plain key is absent.
enum JWSTransactionPayload {
    static let extraKeys = ExtraName<AppStoreField>.list([
        .revocationReason, .revocationType, .revocationPercentage, .offerType, .storefront, .price, .currency,
        .transactionReason, .appTransactionId, .subscriptionGroupIdentifier,
    ])

    /// The purchase's own fields, kept as written when there is no purchase to hold them.
    static let purchaseKeys = ExtraName<AppStoreField>.list([
        .originalTransactionId, .webOrderLineItemId, .productId, .type, .purchaseDate, .originalPurchaseDate,
        .expiresDate, .revocationDate, .quantity, .appAccountToken, .inAppOwnershipType,
    ])

    static func read(_ f: StoreJSONFields<AppStoreField>, into receipt: inout Receipt) throws(DecodeError) {
        receipt.environment = try f.text(first: .environment, .rawEnvironment)
        receipt.appID = try f.text(.bundleId)
        receipt.appItemID = try JWSPayloadCommon.appAppleID(f, extras: &receipt.extras)
        guard f.has(.transactionId) else {
            try f.copy(purchaseKeys + extraKeys, into: &receipt.extras)
            receipt.purchases = []
            return
        }

        var p = Purchase()
        p.transactionID = try f.text(.transactionId)
        p.originalTransactionID = try f.text(.originalTransactionId)
        p.webOrderLineItemID = try f.text(.webOrderLineItemId)
        p.productID = try f.text(.productId)
        p.productType = try f.text(first: .type, .rawType).map { ProductType(jwsType: $0) }
        p.purchaseDate = try f.epochMillis(.purchaseDate, truncating: true)
        p.originalPurchaseDate = try f.epochMillis(.originalPurchaseDate, truncating: true)
        p.expiresDate = try f.epochMillis(.expiresDate, truncating: true)
        p.cancellationDate = try f.epochMillis(.revocationDate, truncating: true)
        p.quantity = try f.count(.quantity) ?? 1
        p.accountToken = try f.text(.appAccountToken)
        p.ownership = try f.text(first: .inAppOwnershipType, .rawInAppOwnershipType)
        try f.copy(extraKeys, into: &p.extras)
        receipt.purchases = [p]
    }

    /// A transaction's decoded JSON stored without its JWS: a `transactionId` with at least
    /// one more field of a transaction, in Apple's camelCase. Google's INAPP_PURCHASE_DATA
    /// (`orderId`, `packageName`, `purchaseToken`) and a verifyReceipt response (`receipt`,
    /// `status`, `latest_receipt_info`, snake_case `transaction_id`) never match.
    static func looksLikeDecoded(_ obj: JSONObject) -> Bool {
        guard obj["transactionId"] != nil,
            ["originalTransactionId", "bundleId", "productId", "purchaseDate"].contains(where: { obj[$0] != nil })
        else {
            return false
        }
        let otherKinds = ["orderId", "packageName", "purchaseToken", "receipt", "status", "latest_receipt_info"]
        return !otherKinds.contains { obj[$0] != nil }
    }
}
