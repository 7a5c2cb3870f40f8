import IAPBasics
import JSONText

// AppTransaction [formats.md §4.3; ASL-py `models/AppTransaction.py`]: proof the app was
// obtained, not an in-app purchase, so it yields no purchases.
//
//   key                        example                              -> Receipt
//   environment | receiptType  Production | Sandbox | Xcode         environment
//   bundleId                   "com.example.app"                    appID
//   appAppleId                 1234567890                           appItemID, extras
//   applicationVersion         "42"                                 appVersion
//   originalApplicationVersion "1.0"                                originalAppVersion
//   receiptCreationDate        1698148900000                        creationDate when no signedDate
//   receiptType, appTransactionId, originalPlatform, originalPurchaseDate   extras, as written
enum JWSAppTransactionPayload {
    static let extraKeys = ExtraName<AppStoreField>.list([
        .receiptType, .appTransactionId, .originalPlatform, .originalPurchaseDate,
    ])

    static func read(_ f: StoreJSONFields<AppStoreField>, into receipt: inout Receipt) throws(DecodeError) {
        receipt.environment = try f.text(first: .environment, .receiptType)
        receipt.appID = try f.text(.bundleId)
        receipt.appItemID = try JWSPayloadCommon.appAppleID(f, extras: &receipt.extras)
        receipt.appVersion = try f.text(.applicationVersion)
        receipt.originalAppVersion = try f.text(.originalApplicationVersion)
        try f.copy(extraKeys, into: &receipt.extras)
    }

    /// The date its chain is checked at: `signedDate`, else `receiptCreationDate`.
    static func verifyDate(_ f: StoreJSONFields<AppStoreField>) throws(DecodeError) -> Timestamp? {
        let key: AppStoreField = f.has(.signedDate) ? .signedDate : .receiptCreationDate
        return try f.epochMillis(key, truncating: true)
    }
}
