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

    /// Every field's spelling, for matching member names against in one contiguous table.
    struct Spellings: Sendable {
        /// The spellings one after another.
        fileprivate let bytes: [UInt8]
        /// Sorted by length: a spelling's first eight bytes (fewer, zero-padded, when it is
        /// shorter), where it starts in `bytes`, its length and its field.
        fileprivate let entries: [(head: UInt64, start: Int, length: Int, field: AppStoreField)]
        /// By length: the first entry of that length (`entries.count` past the longest).
        fileprivate let firstOfLength: [Int]
    }

    static let spellingTable: Spellings = {
        var bytes: [UInt8] = []
        var entries: [(head: UInt64, start: Int, length: Int, field: AppStoreField)] = []
        for field in allCases {
            let spelling = Array(field.spelling.utf8)
            let head = spelling.withUnsafeBytes { Self.head(of: $0) }
            entries.append((head, bytes.count, spelling.count, field))
            bytes += spelling
        }
        entries.sort { $0.length < $1.length }
        let longest = entries.last?.length ?? 0
        let firstOfLength = (0...(longest + 1)).map { n in entries.firstIndex { $0.length >= n } ?? entries.count }
        return Spellings(bytes: bytes, entries: entries, firstOfLength: firstOfLength)
    }()

    /// A name's first eight bytes as one word, zero-padded when it is shorter.
    @inline(__always)
    private static func head(of name: UnsafeRawBufferPointer) -> UInt64 {
        guard name.count < 8 else { return name.loadUnaligned(as: UInt64.self) }
        var head: UInt64 = 0
        for k in 0..<name.count { head |= UInt64(name[k]) << UInt64(8 * k) }
        return head
    }

    /// The field a member's name spells, exactly; nil for any other name. `table`: `spellingTable`.
    static func spelt(_ name: UnsafeRawBufferPointer, in table: Spellings) -> AppStoreField? {
        guard name.count + 1 < table.firstOfLength.count else { return nil }
        let head = Self.head(of: name)
        for e in table.entries[table.firstOfLength[name.count]..<table.firstOfLength[name.count + 1]]
        where e.head == head {
            // The bytes past the first eight.
            var k = 8
            while k < name.count, table.bytes[e.start + k] == name[k] { k += 1 }
            if k >= name.count { return e.field }
        }
        return nil
    }

    /// The field spelt `name`, as it reads.
    init?(spelling name: String) {
        var name = name
        guard let field = name.withUTF8({ Self.spelt(UnsafeRawBufferPointer($0), in: Self.spellingTable) }) else {
            return nil
        }
        self = field
    }
}
