import IAPBasics
import JSONText

/// What every JWS payload may carry.
enum JWSPayloadCommon {
    /// `appAppleId` (older tokens: `appItemID`), also kept in extras as `app_apple_id`.
    static func appAppleID(
        _ f: StoreJSONFields<AppStoreField>,
        extras: inout [(key: String, value: JSONValue)]
    ) throws(DecodeError) -> Int64? {
        let key: AppStoreField = f.has(.appAppleId) ? .appAppleId : .appItemID
        guard let id = try f.integer(key) else { return nil }
        extras.append(("app_apple_id", .integer(id)))
        return id
    }
}

/// Every member an App Store payload reader asks for, in a transaction, renewal info, an
/// app transaction, a notification or its `data` [formats.md §4.3]. A scanned payload finds
/// them in its one pass (`StoreJSONFields.scan`), so asking for one compares no name.
enum AppStoreField: String, CaseIterable, FieldName {
    // Transactions.
    case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId, type, rawType
    case purchaseDate, originalPurchaseDate, expiresDate, revocationDate, quantity, appAccountToken
    case inAppOwnershipType, rawInAppOwnershipType, environment, rawEnvironment, appAppleId, appItemID
    case revocationReason, revocationType, revocationPercentage, offerType, storefront, price, currency
    case transactionReason, appTransactionId, subscriptionGroupIdentifier, signedDate
    // Renewal info.
    case autoRenewProductId, autoRenewStatus, expirationIntent, renewalDate, isInBillingRetryPeriod
    case gracePeriodExpiresDate, priceIncreaseStatus, recentSubscriptionStartDate, renewalPrice
    // App transactions.
    case receiptType, receiptCreationDate, applicationVersion, originalApplicationVersion, originalPlatform
    // Notifications and their `data`.
    case notificationType, subtype, notificationUUID, data, signedTransactionInfo, signedRenewalInfo
    case bundleVersion, status, consumptionRequestReason

    var spelling: String { rawValue }
    var appStoreField: AppStoreField? { self }

    /// The field a member's name spells, exactly; nil for any other name.
    init?(spelt name: UnsafeRawBufferPointer) {
        guard name.count < Self.byLength.count else { return nil }
        for (spelling, field) in Self.byLength[name.count] where spelling.elementsEqual(name) {
            self = field
            return
        }
        return nil
    }

    /// The fields by the length of their names: a name is compared with those of its length only.
    private static let byLength: [[(spelling: [UInt8], field: AppStoreField)]] = {
        var table: [[(spelling: [UInt8], field: AppStoreField)]] = []
        for field in allCases {
            let spelling = Array(field.rawValue.utf8)
            while table.count <= spelling.count { table.append([]) }
            table[spelling.count].append((spelling, field))
        }
        return table
    }()
}
