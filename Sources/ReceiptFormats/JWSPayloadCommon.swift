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
/// app transaction, a notification or its `data` [formats.md §4.3], each spelt as its case.
/// A scanned payload finds them in its one pass (`StoreJSONFields.scan`) and keeps each
/// one's place by its `rawValue`, so asking for one compares no name.
enum AppStoreField: Int, CaseIterable, FieldName {
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

    var spelling: String { Self.spellings[rawValue] }
    var appStoreField: AppStoreField? { self }

    /// Each case's name, which is the member's.
    private static let spellings = allCases.map { String(describing: $0) }

    /// The fields by the length of their names: a name is compared with those of its length only.
    static let byLength: [[(spelling: [UInt8], field: AppStoreField)]] = {
        var table: [[(spelling: [UInt8], field: AppStoreField)]] = []
        for field in allCases {
            let spelling = Array(field.spelling.utf8)
            while table.count <= spelling.count { table.append([]) }
            table[spelling.count].append((spelling, field))
        }
        return table
    }()

    /// The field a member's name spells, exactly; nil for any other name. `table`: `byLength`.
    static func spelt(
        _ name: UnsafeRawBufferPointer, in table: [[(spelling: [UInt8], field: AppStoreField)]]
    ) -> AppStoreField? {
        guard name.count < table.count else { return nil }
        for (spelling, field) in table[name.count] {
            let same = spelling.withUnsafeBytes { s in
                var k = 0
                while k < s.count, s[k] == name[k] { k += 1 }
                return k == s.count
            }
            if same { return field }
        }
        return nil
    }

    /// The field spelt `name`, as it reads.
    init?(spelling name: String) {
        var name = name
        guard let field = name.withUTF8({ Self.spelt(UnsafeRawBufferPointer($0), in: Self.byLength) }) else {
            return nil
        }
        self = field
    }
}
