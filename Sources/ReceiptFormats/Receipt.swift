import IAPBasics
import JSONText

/// The one normalised model every receipt kind decodes into. Raw store values are kept
/// beside the typed ones so a value we do not know shows as unknown instead of failing.
public struct Receipt: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case appleAppReceipt = "apple-app-receipt"
        case appleLegacyReceipt = "apple-legacy-receipt"
        case appleVerifyReceiptJSON = "apple-verify-receipt-json"
        case appleJWSTransaction = "apple-jws-transaction"
        case googlePurchase = "google-purchase"

        /// Whether a signature covers the environment such a receipt states: not on an iOS 6
        /// receipt, whose environment sits in the outer plist beside the signed
        /// `purchase-info` (a Sandbox receipt stripped of it looks like a production one and
        /// still verifies).
        public var signsEnvironment: Bool { self != .appleLegacyReceipt }
    }

    public enum JWSType: String, Sendable, Equatable {
        case transaction
        case renewalInfo = "renewal-info"
        case appTransaction = "app-transaction"
        case notification
    }

    public var kind: Kind
    public var platform: Platform
    /// For JWS: which payload it is.
    public var jwsType: JWSType?
    /// As the store wrote it: `Production`, `ProductionSandbox`, `Sandbox`, `Xcode`,
    /// `LocalTesting`, …; Google: `Production`, or `Test` for a test purchase.
    public var environment: String?
    /// Bundle id (Apple) or package name (Google).
    public var appID: String?
    /// Apple's app item id ("adam id"); 0 in sandbox.
    public var appItemID: Int64?
    public var appVersion: String?
    public var originalAppVersion: String?
    /// Apple: receipt creation date (attribute 12, `receipt_creation_date`, JWS `signedDate`);
    /// the date a signature chain is checked at.
    public var creationDate: Timestamp?
    public var purchases: [Purchase]
    /// verifyReceipt only: Apple's `status` (21007 = a sandbox receipt sent to production).
    public var status: Int64?
    /// What a signature check needs, untouched.
    public var signed: SignedMaterial
    /// Store-specific values worth showing (`decode` prints them), in a stable order.
    public var extras: [(key: String, value: JSONValue)]

    public init(kind: Kind, platform: Platform, signed: SignedMaterial) {
        self.kind = kind
        self.platform = platform
        self.signed = signed
        self.purchases = []
        self.extras = []
    }

    /// Whether a signature covers `environment` (`Kind.signsEnvironment`).
    public var environmentIsSigned: Bool { kind.signsEnvironment }

    public static func == (a: Receipt, b: Receipt) -> Bool {
        a.kind == b.kind && a.platform == b.platform && a.jwsType == b.jwsType && a.environment == b.environment
            && a.appID == b.appID && a.appItemID == b.appItemID && a.appVersion == b.appVersion
            && a.originalAppVersion == b.originalAppVersion && a.creationDate == b.creationDate
            && a.purchases == b.purchases && a.status == b.status && a.signed == b.signed
            && JSONObject(a.extras) == JSONObject(b.extras)
    }
}

public enum Platform: String, Sendable, Equatable, Hashable {
    case ios
    case android
}

/// One purchase (Apple in-app entry or transaction, Google purchase).
public struct Purchase: Sendable, Equatable {
    public var productID: String?
    /// Apple transaction id; Google `orderId` (nil for a test purchase).
    public var transactionID: String?
    public var originalTransactionID: String?
    public var webOrderLineItemID: String?
    public var quantity: Int64 = 1
    public var purchaseDate: Timestamp?
    public var originalPurchaseDate: Timestamp?
    public var expiresDate: Timestamp?
    /// Apple cancellation date (1712, `cancellation_date`) or JWS `revocationDate`.
    public var cancellationDate: Timestamp?
    public var productType: ProductType?
    /// `PURCHASED` or `FAMILY_SHARED` (JWS, verifyReceipt `in_app_ownership_type`).
    public var ownership: String?
    /// Apple `appAccountToken` (a UUID the app set); Google `obfuscatedAccountId`.
    public var accountToken: String?
    /// Google only.
    public var purchaseToken: String?
    /// Google `purchaseState` as written: 0 purchased, 1 cancelled, 2 or 4 pending.
    public var purchaseState: Int64?
    /// Google `purchaseType` when present: 0 test (license tester), 1 promo, 2 rewarded.
    public var purchaseType: Int64?
    /// Store-specific values worth showing, in a stable order.
    public var extras: [(key: String, value: JSONValue)] = []

    public init() {}

    public static func == (a: Purchase, b: Purchase) -> Bool {
        a.productID == b.productID && a.transactionID == b.transactionID
            && a.originalTransactionID == b.originalTransactionID && a.webOrderLineItemID == b.webOrderLineItemID
            && a.quantity == b.quantity && a.purchaseDate == b.purchaseDate
            && a.originalPurchaseDate == b.originalPurchaseDate && a.expiresDate == b.expiresDate
            && a.cancellationDate == b.cancellationDate && a.productType == b.productType
            && a.ownership == b.ownership && a.accountToken == b.accountToken
            && a.purchaseToken == b.purchaseToken && a.purchaseState == b.purchaseState
            && a.purchaseType == b.purchaseType && JSONObject(a.extras) == JSONObject(b.extras)
    }
}

/// The store's product type, with the raw value kept when it is one we do not know.
public enum ProductType: Sendable, Equatable {
    case consumable
    case nonConsumable
    case autoRenewable
    case nonRenewing
    case unknown(String)

    public var name: String {
        switch self {
        case .consumable: return "consumable"
        case .nonConsumable: return "non_consumable"
        case .autoRenewable: return "auto_renewable"
        case .nonRenewing: return "non_renewing"
        case .unknown(let raw): return "unknown(\(raw))"
        }
    }

    /// Apple in-app attribute 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
    public init(appleCode: Int64) {
        switch appleCode {
        case 0: self = .nonConsumable
        case 1: self = .consumable
        case 2: self = .nonRenewing
        case 3: self = .autoRenewable
        default: self = .unknown(String(appleCode))
        }
    }

    /// JWS `type`.
    public init(jwsType: String) {
        switch jwsType {
        case "Consumable": self = .consumable
        case "Non-Consumable": self = .nonConsumable
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: self = .unknown(jwsType)
        }
    }

    /// The catalog's spelling (`consumable`, `non_consumable`, `auto_renewable`, `non_renewing`).
    public init?(catalogName: String) {
        switch catalogName {
        case "consumable": self = .consumable
        case "non_consumable": self = .nonConsumable
        case "auto_renewable": self = .autoRenewable
        case "non_renewing": self = .nonRenewing
        default: return nil
        }
    }
}

/// The bytes a signature check needs, exactly as received.
public enum SignedMaterial: Sendable, Equatable {
    /// Nothing signed (an INAPP_PURCHASE_DATA alone, a verifyReceipt JSON without `latest_receipt`).
    case none
    /// PKCS#7 SignedData of an app receipt.
    case pkcs7(PKCS7Signed)
    /// iOS 6: RSA signature over `0x02 ‖ purchase-info bytes`, with the leaf certificate
    /// (neither when the receipt came without its `signature`).
    case legacy(LegacySigned)
    /// A compact JWS; a notification also carries the JWS its `data` nests, in `Field`
    /// order. Empty for every other JWS: an empty array allocates nothing.
    case jws(JWSSigned, nested: [NestedJWS])
    /// Google: the exact `originalJson` bytes and the base64-decoded signature (nil: unsigned).
    /// `storedAsObjectIn`: the key (`data`, Unity's `json`) that held originalJson as a JSON
    /// object instead of text; its bytes as they stand in the payload are what is checked.
    case google(originalJSON: [UInt8], signature: [UInt8]?, storedAsObjectIn: String? = nil)
    /// The decoded payload of a JWS signed transaction as Apple's server libraries return it
    /// and servers store it, with no JWS around it: nothing signed is left.
    case decodedJWSPayload
    /// A verifyReceipt JSON: its embedded, decoded `latest_receipt` (or `receipt-data`) if any.
    case verifyReceipt(embedded: EmbeddedReceipt?)
}

extension SignedMaterial {
    /// The raw signature segments of a JWS and of the JWS it nests, in the order they are
    /// checked (the outer first); none for anything else. A worker hands a batch's to
    /// `ES256Inverses` before checking them.
    public func appendJWSSignatures(to signatures: inout [[UInt8]]) {
        switch self {
        case .jws(let outer, let nested):
            signatures.append(outer.signature)
            for i in nested.indices { signatures.append(nested[i].signed.signature) }
        default: return
        }
    }
}

/// Boxed so `Receipt` can hold a `Receipt`.
public final class EmbeddedReceipt: Sendable, Equatable {
    public let receipt: Receipt
    public init(_ receipt: Receipt) { self.receipt = receipt }
    public static func == (a: EmbeddedReceipt, b: EmbeddedReceipt) -> Bool { a.receipt == b.receipt }
}

public struct PKCS7Signed: Sendable, Equatable {
    /// DER certificates as carried in `certificates [0]`, in order.
    public var certificates: [[UInt8]]
    /// The signer's issuer (DER Name) and serial number (DER INTEGER content), to pick its certificate.
    public var signerIssuer: [UInt8]
    public var signerSerial: [UInt8]
    /// Digest algorithm OID, dotted (`1.3.14.3.2.26` SHA-1, `2.16.840.1.101.3.4.2.1` SHA-256).
    public var digestAlgorithm: String
    /// Signature algorithm OID, dotted (`1.2.840.113549.1.1.1` rsaEncryption, or `…1.1.11` etc.).
    public var signatureAlgorithm: String
    /// DER of the signed attributes when present (then the signature covers them), else nil.
    public var signedAttributes: [UInt8]?
    public var signature: [UInt8]
    /// The eContent octets (the receipt payload), joined if it came as a constructed OCTET STRING.
    public var content: [UInt8]

    public init(
        certificates: [[UInt8]], signerIssuer: [UInt8], signerSerial: [UInt8], digestAlgorithm: String,
        signatureAlgorithm: String, signedAttributes: [UInt8]?, signature: [UInt8], content: [UInt8]
    ) {
        self.certificates = certificates
        self.signerIssuer = signerIssuer
        self.signerSerial = signerSerial
        self.digestAlgorithm = digestAlgorithm
        self.signatureAlgorithm = signatureAlgorithm
        self.signedAttributes = signedAttributes
        self.signature = signature
        self.content = content
    }
}

public struct LegacySigned: Sendable, Equatable {
    /// `0x02 ‖ base64-decoded purchase-info`.
    public var signedData: [UInt8]
    /// Both nil when the receipt has no `signature` (then it cannot verify).
    public var signature: [UInt8]?
    public var certificate: [UInt8]?

    public init(signedData: [UInt8], signature: [UInt8]?, certificate: [UInt8]?) {
        self.signedData = signedData
        self.signature = signature
        self.certificate = certificate
    }
}

public struct JWSSigned: Sendable, Equatable {
    /// The signing input, ASCII `header.payload` exactly as the two segments appear, in two
    /// parts: the header segment (repeated across a store's JWS, and then handed out by the
    /// header cache as one shared array), and the rest from the dot on.
    public var header: [UInt8]
    public var afterHeader: [UInt8]
    /// The raw signature segment, base64url-decoded (64 bytes r ‖ s for ES256).
    public var signature: [UInt8]
    public var algorithm: String?
    /// `x5c`, base64-decoded DER, leaf first.
    public var certificates: [[UInt8]]
    /// `signedDate` (or an AppTransaction's `receiptCreationDate`): the verify time.
    public var signedDate: Timestamp?

    public init(
        header: [UInt8], afterHeader: [UInt8], signature: [UInt8], algorithm: String?, certificates: [[UInt8]],
        signedDate: Timestamp?
    ) {
        self.header = header
        self.afterHeader = afterHeader
        self.signature = signature
        self.algorithm = algorithm
        self.certificates = certificates
        self.signedDate = signedDate
    }

    /// From the whole signing input, its first `headerLength` bytes the header.
    public init(
        signingInput: [UInt8], headerLength: Int = 0, signature: [UInt8], algorithm: String?, certificates: [[UInt8]],
        signedDate: Timestamp?
    ) {
        let split = min(max(headerLength, 0), signingInput.count)
        self.init(
            header: Array(signingInput[..<split]), afterHeader: Array(signingInput[split...]), signature: signature,
            algorithm: algorithm, certificates: certificates, signedDate: signedDate)
    }

    /// The bytes signed, whole; setting them keeps the header's length where it fits.
    public var signingInput: [UInt8] {
        get { header + afterHeader }
        set {
            let split = min(header.count, newValue.count)
            header = Array(newValue[..<split])
            afterHeader = Array(newValue[split...])
        }
    }

    /// How many of the signing input's first bytes are the header segment.
    public var headerLength: Int { header.count }

    /// The same signed bytes, signature, chain and date, however the bytes are split.
    public static func == (lhs: JWSSigned, rhs: JWSSigned) -> Bool {
        let sameBytes =
            lhs.header.count == rhs.header.count
            ? lhs.header == rhs.header && lhs.afterHeader == rhs.afterHeader
            : lhs.signingInput == rhs.signingInput
        return sameBytes && lhs.signature == rhs.signature && lhs.algorithm == rhs.algorithm
            && lhs.certificates == rhs.certificates && lhs.signedDate == rhs.signedDate
    }
}
