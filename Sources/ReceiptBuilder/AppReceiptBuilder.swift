import IAPBasics

/// Writes Apple app receipts (formats.md §1): the attribute payload, signed into a PKCS#7
/// ContentInfo, DER as the App Store writes it or BER as Xcode does.
public enum AppReceiptBuilder {
    public enum Encoding: Sendable {
        /// App Store: DER throughout.
        case der
        /// Xcode: indefinite lengths and a constructed OCTET STRING around the (DER) payload.
        case xcodeBER
    }

    public enum DateStyle: Sendable {
        /// `2020-07-14T19:36:40Z` (`.sss` when the timestamp has milliseconds).
        case appStore
        /// Local time with an offset, as Xcode writes: `2020-07-22T18:33:15+0100`.
        case offset(minutes: Int)
    }

    /// An attribute written as given: `value` is the OCTET STRING's content.
    public struct RawAttribute: Sendable {
        public var type: Int64
        public var version: Int64
        public var value: [UInt8]

        public init(type: Int64, version: Int64 = 1, value: [UInt8]) {
            self.type = type
            self.version = version
            self.value = value
        }
    }

    public struct InAppPurchase: Sendable {
        public var quantity: Int64 = 1
        public var productID: String
        public var transactionID: String
        public var originalTransactionID: String
        public var purchaseDate: Timestamp
        public var originalPurchaseDate: Timestamp
        /// nil writes the empty string App Store receipts carry for non-subscriptions.
        public var expiresDate: Timestamp?
        public var cancellationDate: Timestamp?
        /// 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
        public var productTypeCode: Int64?
        public var webOrderLineItemID: Int64?
        public var isTrialPeriod: Bool?
        public var isInIntroOfferPeriod: Bool?
        public var promotionalOfferID: String?
        public var extraAttributes: [RawAttribute] = []

        public init(
            productID: String, transactionID: String, originalTransactionID: String? = nil,
            purchaseDate: Timestamp, originalPurchaseDate: Timestamp? = nil
        ) {
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        }
    }

    public struct Spec: Sendable {
        /// Attribute 0: `Production`, `ProductionSandbox`, `Xcode`.
        public var environment: String
        public var bundleID: String
        public var appVersion: String
        public var originalAppVersion: String
        /// 0 in sandbox and Xcode receipts.
        public var appItemID: Int64
        public var creationDate: Timestamp
        public var expirationDate: Timestamp?
        public var opaqueValue: [UInt8] = Array(repeating: 0xA5, count: 16)
        public var sha1Hash: [UInt8] = Array(repeating: 0x5A, count: 20)
        public var ageRating: String?
        public var purchases: [InAppPurchase] = []
        /// App-level attributes written as given (undocumented ones, shapes under test).
        public var extraAttributes: [RawAttribute] = []
        public var encoding: Encoding = .der
        public var dateStyle: DateStyle = .appStore

        public init(
            environment: String = "Production", bundleID: String, appVersion: String,
            originalAppVersion: String = "1.0", appItemID: Int64, creationDate: Timestamp
        ) {
            self.environment = environment
            self.bundleID = bundleID
            self.appVersion = appVersion
            self.originalAppVersion = originalAppVersion
            self.appItemID = appItemID
            self.creationDate = creationDate
        }
    }

    /// The signed receipt: a ContentInfo whose content is `payload(spec)`.
    public static func build(_ spec: Spec, signedBy identity: SigningIdentity) throws -> [UInt8] {
        try DERSignedDataWriter.contentInfo(
            content: payload(spec), identity: identity,
            lengths: spec.encoding == .der ? .definite : .indefinite)
    }

    // Payload ::= SET OF ReceiptAttribute
    // ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
    // InAppReceipt ::= SET OF ReceiptAttribute   -- inside each type-17 value
    public static func payload(_ spec: Spec) -> [UInt8] {
        let style = spec.dateStyle
        var attributes: [[UInt8]] = [
            attribute(0, utf8: spec.environment),
            attribute(1, integer: spec.appItemID),
            attribute(2, utf8: spec.bundleID),
            attribute(3, utf8: spec.appVersion),
            attribute(4, version: 2, raw: spec.opaqueValue),
            attribute(5, raw: spec.sha1Hash),
            attribute(12, date: spec.creationDate, style),
            attribute(19, utf8: spec.originalAppVersion),
        ]
        if let ageRating = spec.ageRating { attributes.append(attribute(10, ia5: ageRating)) }
        if let expiration = spec.expirationDate { attributes.append(attribute(21, date: expiration, style)) }
        for raw in spec.extraAttributes { attributes.append(attribute(raw.type, version: raw.version, raw: raw.value)) }
        for purchase in spec.purchases {
            attributes.append(attribute(17, raw: set(inAppAttributes(purchase, style))))
        }
        return set(attributes)
    }

    private static func inAppAttributes(_ p: InAppPurchase, _ style: DateStyle) -> [[UInt8]] {
        var attributes: [[UInt8]] = [
            attribute(1701, integer: p.quantity),
            attribute(1702, utf8: p.productID),
            attribute(1703, utf8: p.transactionID),
            attribute(1704, date: p.purchaseDate, style),
            attribute(1705, utf8: p.originalTransactionID),
            attribute(1706, date: p.originalPurchaseDate, style),
            attribute(1708, ia5: p.expiresDate.map { text($0, style) } ?? ""),
            attribute(1712, ia5: p.cancellationDate.map { text($0, style) } ?? ""),
        ]
        if let code = p.productTypeCode { attributes.append(attribute(1707, integer: code)) }
        if let id = p.webOrderLineItemID { attributes.append(attribute(1711, integer: id)) }
        if let trial = p.isTrialPeriod { attributes.append(attribute(1713, integer: trial ? 1 : 0)) }
        if let intro = p.isInIntroOfferPeriod { attributes.append(attribute(1719, integer: intro ? 1 : 0)) }
        if let offer = p.promotionalOfferID { attributes.append(attribute(1721, utf8: offer)) }
        for raw in p.extraAttributes { attributes.append(attribute(raw.type, version: raw.version, raw: raw.value)) }
        return attributes
    }

    /// SET OF in DER: sorted by encoding.
    private static func set(_ elements: [[UInt8]]) -> [UInt8] {
        var writer = DERWriter()
        writer.writeSetOf(elements)
        return writer.bytes
    }

    private static func attribute(_ type: Int64, version: Int64 = 1, raw value: [UInt8]) -> [UInt8] {
        var writer = DERWriter()
        writer.writeConstructed(DERWriter.sequence) { sequence in
            sequence.writeInteger(type)
            sequence.writeInteger(version)
            sequence.writeOctetString(value)
        }
        return writer.bytes
    }

    private static func attribute(_ type: Int64, utf8 text: String) -> [UInt8] {
        var value = DERWriter()
        value.writeUTF8String(text)
        return attribute(type, raw: value.bytes)
    }

    private static func attribute(_ type: Int64, ia5 text: String) -> [UInt8] {
        var value = DERWriter()
        value.writeIA5String(text)
        return attribute(type, raw: value.bytes)
    }

    private static func attribute(_ type: Int64, integer: Int64) -> [UInt8] {
        var value = DERWriter()
        value.writeInteger(integer)
        return attribute(type, raw: value.bytes)
    }

    private static func attribute(_ type: Int64, date: Timestamp, _ style: DateStyle) -> [UInt8] {
        attribute(type, ia5: text(date, style))
    }

    private static func text(_ date: Timestamp, _ style: DateStyle) -> String {
        switch style {
        case .appStore:
            return date.iso8601
        case .offset(let minutes):
            // Past year 9999 in local time there is no offset form; the UTC form is still right.
            guard
                let local = Timestamp(
                    millis: date.millis + Int64(minutes) * 60_000,
                    hasMilliseconds: date.hasMilliseconds)
            else { return date.iso8601 }
            let magnitude = abs(minutes)
            let zone = (minutes < 0 ? "-" : "+") + pad(magnitude / 60) + pad(magnitude % 60)
            return String(local.iso8601.dropLast()) + zone
        }
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
