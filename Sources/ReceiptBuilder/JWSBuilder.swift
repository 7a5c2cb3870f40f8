import IAPBasics
import JSONText
import Synchronization

/// Writes App Store JWS the way Apple does (formats.md §4): header
/// `{"alg":"ES256","x5c":[…]}` from the identity's certificates, a payload from a spec, and
/// the identity's signature over the ASCII `header.payload`, all base64url without padding.
public enum JWSBuilder {
    /// Signs any payload: the specs below, or one a test crafted by hand.
    public static func sign(payload: JSONObject, with identity: SigningIdentity, keyID: String? = nil) throws -> String
    {
        let signingInput = headerSegment(identity.certificates, keyID: keyID) + "." + segment(payload)
        let signature = try identity.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url)
    }

    public static func transaction(
        _ spec: Transaction, with identity: SigningIdentity,
        keyID: String? = nil
    ) throws -> String {
        try sign(payload: spec.payload, with: identity, keyID: keyID)
    }

    public static func renewalInfo(
        _ spec: RenewalInfo, with identity: SigningIdentity,
        keyID: String? = nil
    ) throws -> String {
        try sign(payload: spec.payload, with: identity, keyID: keyID)
    }

    public static func appTransaction(
        _ spec: AppTransaction, with identity: SigningIdentity,
        keyID: String? = nil
    ) throws -> String {
        try sign(payload: spec.payload, with: identity, keyID: keyID)
    }

    public static func fewFields(_ spec: FewFields, with identity: SigningIdentity, keyID: String? = nil) throws
        -> String
    {
        try sign(payload: spec.payload, with: identity, keyID: keyID)
    }

    /// The header of an identity's JWS: the same for all it signs, and (its certificates
    /// twice encoded) most of a small JWS's cost, so it is made once per chain and key id.
    private static func headerSegment(_ certificates: [[UInt8]], keyID: String?) -> String {
        let key = HeaderKey(certificates: certificates, keyID: keyID)
        if let known = headers.withLock({ $0[key] }) { return known }
        var header = JSONObject([
            ("alg", .string("ES256")),
            ("x5c", .array(certificates.map { .string(Base64.encode($0)) })),
        ])
        if let keyID { header.members.append(("kid", .string(keyID))) }
        let made = segment(header)
        headers.withLock {
            // A test's many throwaway chains must not pile up.
            if $0.count >= 32 { $0.removeAll() }
            $0[key] = made
        }
        return made
    }

    private struct HeaderKey: Hashable {
        var certificates: [[UInt8]]
        var keyID: String?

        // A certificate ends in its signature: its last bytes tell chains apart, and hashing
        // kilobytes a byte at a time would cost more than the cache saves. Equality stays whole.
        func hash(into hasher: inout Hasher) {
            hasher.combine(keyID)
            for c in certificates {
                hasher.combine(c.count)
                c.suffix(16).withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }
    }

    private static let headers = Mutex<[HeaderKey: String]>([:])

    private static func segment(_ object: JSONObject) -> String {
        Base64.encode(Array(JSONValue.object(object).jsonText.utf8), alphabet: .url)
    }

    /// An epoch-ms date as a JSON number; Xcode appends a fraction of a millisecond.
    static func date(_ t: Timestamp, fraction: String?) -> JSONValue {
        .number(String(t.millis) + (fraction.map { "." + $0 } ?? ""))
    }

    /// A signed transaction (JWSTransactionDecodedPayload), in Apple's key order.
    public struct Transaction: Sendable {
        public var transactionID: String
        public var originalTransactionID: String
        public var webOrderLineItemID: String?
        public var bundleID: String
        public var productID: String
        public var subscriptionGroupIdentifier: String?
        public var purchaseDate: Timestamp
        public var originalPurchaseDate: Timestamp
        public var expiresDate: Timestamp?
        public var quantity: Int64 = 1
        /// `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription`, `Non-Renewing Subscription`.
        public var type: String
        public var appAccountToken: String?
        public var inAppOwnershipType: String = "PURCHASED"
        public var signedDate: Timestamp
        public var revocationReason: Int64?
        public var revocationDate: Timestamp?
        /// `Production`, `Sandbox`, `Xcode`, `LocalTesting`.
        public var environment: String = "Production"
        public var transactionReason: String = "PURCHASE"
        public var storefront: String = "USA"
        public var storefrontID: String = "143441"
        /// Milliunits of `currency` (4990 = 4.99).
        public var price: Int64?
        public var currency: String?
        public var appTransactionID: String?
        /// How a refund or revocation took it back: `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
        public var revocationType: String?
        /// The share refunded, a percentage in milliunits (50000 = 50 %), beside `revocationType`.
        public var revocationPercentage: Int64?
        /// Digits written after every date's milliseconds, as Xcode does (`"456"`: `….456`).
        public var millisecondFraction: String?

        public init(
            transactionID: String, originalTransactionID: String? = nil, bundleID: String, productID: String,
            type: String = "Consumable", purchaseDate: Timestamp, originalPurchaseDate: Timestamp? = nil,
            signedDate: Timestamp
        ) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.bundleID = bundleID
            self.productID = productID
            self.type = type
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
            self.signedDate = signedDate
        }

        public var payload: JSONObject {
            var o = JSONObject()
            func put(_ key: String, _ value: JSONValue?) { if let value { o.members.append((key, value)) } }
            func date(_ t: Timestamp?) -> JSONValue? { t.map { JWSBuilder.date($0, fraction: millisecondFraction) } }
            put("transactionId", .string(transactionID))
            put("originalTransactionId", .string(originalTransactionID))
            put("webOrderLineItemId", webOrderLineItemID.map { .string($0) })
            put("bundleId", .string(bundleID))
            put("productId", .string(productID))
            put("subscriptionGroupIdentifier", subscriptionGroupIdentifier.map { .string($0) })
            put("purchaseDate", date(purchaseDate))
            put("originalPurchaseDate", date(originalPurchaseDate))
            put("expiresDate", date(expiresDate))
            put("quantity", .integer(quantity))
            put("type", .string(type))
            put("appAccountToken", appAccountToken.map { .string($0) })
            put("inAppOwnershipType", .string(inAppOwnershipType))
            put("signedDate", date(signedDate))
            put("revocationReason", revocationReason.map { .integer($0) })
            put("revocationDate", date(revocationDate))
            put("environment", .string(environment))
            put("transactionReason", .string(transactionReason))
            put("storefront", .string(storefront))
            put("storefrontId", .string(storefrontID))
            put("price", price.map { .integer($0) })
            put("currency", currency.map { .string($0) })
            put("appTransactionId", appTransactionID.map { .string($0) })
            // Newest keys last, as Apple's own fixture (signedTransactionWithRevocation.json) has them.
            put("revocationType", revocationType.map { .string($0) })
            put("revocationPercentage", revocationPercentage.map { .integer($0) })
            return o
        }
    }

    /// A transaction's decoded payload as Apple's server libraries return it and servers
    /// store it: the JSON alone, no JWS around it (nothing signed).
    public static func decodedJSON(_ spec: Transaction) -> String {
        JSONValue.object(spec.payload).jsonText
    }

    /// A subscription's renewal info (JWSRenewalInfoDecodedPayload).
    public struct RenewalInfo: Sendable {
        public var originalTransactionID: String
        public var productID: String
        public var autoRenewProductID: String
        public var autoRenewStatus: Int64 = 1
        public var renewalDate: Timestamp?
        public var signedDate: Timestamp
        public var environment: String = "Production"

        public init(
            originalTransactionID: String, productID: String, autoRenewProductID: String? = nil,
            renewalDate: Timestamp?, signedDate: Timestamp
        ) {
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.autoRenewProductID = autoRenewProductID ?? productID
            self.renewalDate = renewalDate
            self.signedDate = signedDate
        }

        public var payload: JSONObject {
            var o = JSONObject([
                ("originalTransactionId", .string(originalTransactionID)),
                ("autoRenewProductId", .string(autoRenewProductID)),
                ("productId", .string(productID)),
                ("autoRenewStatus", .integer(autoRenewStatus)),
                ("signedDate", JWSBuilder.date(signedDate, fraction: nil)),
                ("environment", .string(environment)),
            ])
            if let renewalDate { o.members.append(("renewalDate", JWSBuilder.date(renewalDate, fraction: nil))) }
            return o
        }
    }

    /// A payload of only a few fields, as Apple's own test fixtures sign them
    /// (app-store-server-library `mock_signed_data/transactionInfo`: `environment`,
    /// `bundleId`, `signedDate`; `renewalInfo`: `environment`, `signedDate`).
    public struct FewFields: Sendable {
        public var environment: String = "Sandbox"
        /// nil leaves it out, as renewal info does.
        public var bundleID: String?
        public var signedDate: Timestamp
        /// More members, written after the others (a `productId`, an `originalTransactionId`, …).
        public var more: [(key: String, value: JSONValue)] = []

        public init(bundleID: String?, signedDate: Timestamp) {
            self.bundleID = bundleID
            self.signedDate = signedDate
        }

        public var payload: JSONObject {
            var o = JSONObject([("environment", .string(environment))])
            if let bundleID { o.members.append(("bundleId", .string(bundleID))) }
            o.members.append(("signedDate", JWSBuilder.date(signedDate, fraction: nil)))
            o.members.append(contentsOf: more)
            return o
        }
    }

    /// An AppTransaction: the app itself was obtained.
    public struct AppTransaction: Sendable {
        /// `Production`, `Sandbox`, `Xcode`.
        public var receiptType: String = "Production"
        public var appAppleID: Int64
        public var bundleID: String
        public var applicationVersion: String
        public var originalApplicationVersion: String
        public var receiptCreationDate: Timestamp
        public var originalPurchaseDate: Timestamp
        public var appTransactionID: String
        /// Absent in older AppTransactions: then `receiptCreationDate` is the verify time.
        public var signedDate: Timestamp?

        public init(
            appAppleID: Int64, bundleID: String, applicationVersion: String, originalApplicationVersion: String,
            receiptCreationDate: Timestamp, originalPurchaseDate: Timestamp, appTransactionID: String,
            signedDate: Timestamp?
        ) {
            self.appAppleID = appAppleID
            self.bundleID = bundleID
            self.applicationVersion = applicationVersion
            self.originalApplicationVersion = originalApplicationVersion
            self.receiptCreationDate = receiptCreationDate
            self.originalPurchaseDate = originalPurchaseDate
            self.appTransactionID = appTransactionID
            self.signedDate = signedDate
        }

        public var payload: JSONObject {
            var o = JSONObject([
                ("receiptType", .string(receiptType)),
                ("appAppleId", .integer(appAppleID)),
                ("bundleId", .string(bundleID)),
                ("applicationVersion", .string(applicationVersion)),
                ("receiptCreationDate", JWSBuilder.date(receiptCreationDate, fraction: nil)),
                ("originalApplicationVersion", .string(originalApplicationVersion)),
                ("originalPurchaseDate", JWSBuilder.date(originalPurchaseDate, fraction: nil)),
                ("appTransactionId", .string(appTransactionID)),
                ("originalPlatform", .string("iOS")),
            ])
            if let signedDate { o.members.append(("signedDate", JWSBuilder.date(signedDate, fraction: nil))) }
            return o
        }
    }
}
