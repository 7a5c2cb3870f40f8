import IAPBasics
import JSONText

/// Decodes an App Store JWS (StoreKit 2, App Store Server API and notifications) into a
/// `Receipt` of kind `apple-jws-transaction`. Nothing is verified here: the signed
/// material is kept for the signature check, `signedDate` being the time to check at.
public enum JWSDecoder {
    /// Cheap shape test for the content sniffer: `eyJ` (base64url of `{"`), then only
    /// base64url characters and exactly two dots.
    public static func looksLike(_ text: [UInt8]) -> Bool {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        var start = 0
        var end = text.count
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        guard end - start > 3, text[start] == 0x65, text[start + 1] == 0x79, text[start + 2] == 0x4A else {
            return false
        }
        var dots = 0
        for c in text[start..<end] {
            switch c {
            case 0x2E: dots += 1
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: continue
            default: return false
            }
        }
        return dots == 2
    }

    public static func decode(_ text: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        try decode(text, origin: .top(nil), limits: limits, in: nil)
    }

    /// As `decode(_:limits:)`, reading `text` where it lies (a JWS inside a logged line).
    public static func decode(borrowing text: UnsafeRawBufferPointer, limits: Limits = .standard)
        throws(DecodeError) -> Receipt
    {
        try decode(text, origin: .top(nil), limits: limits, in: nil)
    }

    /// `field`: the notification key the JWS sits in, which says the one payload it may be.
    static func decode(
        _ text: [UInt8], origin: TextOrigin, limits: Limits,
        in field: NestedJWS.Field?
    ) throws(DecodeError) -> Receipt {
        let result = text.withUnsafeBytes { bytes in
            Result { () throws(DecodeError) in try decode(bytes, origin: origin, limits: limits, in: field) }
        }
        return try result.get()
    }

    /// Whether a JSON object is a signed transaction's decoded payload stored without its JWS.
    public static func looksLikeDecodedTransaction(_ obj: JSONObject) -> Bool {
        JWSTransactionPayload.looksLikeDecoded(obj)
    }

    /// A signed transaction's decoded payload as Apple's server libraries return it and
    /// servers store it (`bytes`: the JSON text it was parsed from, for error offsets):
    /// kind `apple-jws-transaction`, `jws_type` transaction, read as the JWS payload would
    /// be, with nothing signed to check (`SignedMaterial.decodedJWSPayload`).
    public static func decode(decodedTransaction obj: JSONObject, bytes: [UInt8]?) throws(DecodeError) -> Receipt {
        let f = StoreJSONFields<AppStoreField>(obj, origin: .top(bytes))
        var receipt = Receipt(kind: .appleJWSTransaction, platform: .ios, signed: .decodedJWSPayload)
        receipt.jwsType = .transaction
        try JWSTransactionPayload.read(f, into: &receipt)
        receipt.creationDate = try f.epochMillis(.signedDate, truncating: true)
        return receipt
    }

    /// `text` is borrowed: the receipt keeps copies of what it needs.
    static func decode(
        _ text: UnsafeRawBufferPointer, origin: TextOrigin, limits: Limits,
        in field: NestedJWS.Field?
    ) throws(DecodeError) -> Receipt {
        let jws = try JWSCompact(parsing: text, origin: origin, limits: limits)
        let type = try payloadType(jws.payload, expected: field?.payload)
        if let field, type != field.payload {
            let reason = "the notification's \(field.rawValue) is \(type.rawValue), not \(field.payloadName)"
            throw origin.relocate(DecodeError("bad-notification", reason, at: 0))
        }
        var receipt = Receipt(kind: .appleJWSTransaction, platform: .ios, signed: .none)
        receipt.jwsType = type
        if let kid = jws.keyID { receipt.extras.append(("kid", .string(kid))) }
        let signedDate =
            try type == .appTransaction
            ? JWSAppTransactionPayload.verifyDate(jws.payload)
            : jws.payload.epochMillis(.signedDate, truncating: true)
        var inner: [NestedJWS] = []
        switch type {
        case .transaction:
            try JWSTransactionPayload.read(jws.payload, into: &receipt)
        case .renewalInfo:
            try JWSRenewalInfoPayload.read(jws.payload, into: &receipt)
        case .appTransaction:
            try JWSAppTransactionPayload.read(jws.payload, into: &receipt)
        case .notification:
            inner = try JWSNotificationPayload.read(jws.payload, into: &receipt, limits: limits)
        }
        receipt.creationDate = signedDate
        let signed = JWSSigned(
            header: jws.header, afterHeader: jws.afterHeader, signature: jws.signature,
            algorithm: jws.algorithm,
            certificates: jws.certificates, signedDate: signedDate)
        receipt.signed = .jws(signed, nested: inner)
        return receipt
    }

    /// Which payload this is, by the keys only it carries [formats.md §4.3]:
    ///
    ///   notificationType                                        notification
    ///   transactionId                                           transaction
    ///   autoRenewProductId, autoRenewStatus, renewalDate, expirationIntent,
    ///   isInBillingRetryPeriod, gracePeriodExpiresDate,
    ///   priceIncreaseStatus, recentSubscriptionStartDate, renewalPrice   renewal-info
    ///   receiptType, appTransactionId, receiptCreationDate      app-transaction
    ///
    /// A payload of only a few fields says none of these: Apple's own test fixtures sign
    /// `{environment, bundleId, signedDate}` as a transaction and `{environment, signedDate}`
    /// as renewal info. It is still taken for an App Store payload when it carries
    /// `environment`, `signedDate` or `bundleId`, and typed by what is left:
    ///   any field only a transaction has (`bundleId`, `purchaseDate`, `type`,
    ///   `quantity`, `inAppOwnershipType`, `expiresDate`, …)     transaction
    ///   only fields renewal info has too (`environment`, `signedDate`,
    ///   `originalTransactionId`, `productId`, `appAccountToken`)  renewal-info: the one
    ///                                                           payload without `bundleId`
    ///   inside a notification's `signedTransactionInfo`        transaction, as it says
    ///   inside a notification's `signedRenewalInfo`            renewal-info, as it says
    /// Without a `transactionId` it yields no purchase (nothing to claim); its signature is
    /// checked as any other's.
    private static func payloadType(
        _ f: StoreJSONFields<AppStoreField>,
        expected: Receipt.JWSType?
    ) throws(DecodeError) -> Receipt.JWSType {
        if f.has(.notificationType) { return .notification }
        if f.has(.transactionId) { return .transaction }
        if renewalOnlyKeys.contains(where: f.has) { return .renewalInfo }
        if f.has(.receiptType) || f.has(.appTransactionId) || f.has(.receiptCreationDate) { return .appTransaction }
        if [AppStoreField.environment, .signedDate, .bundleId].contains(where: f.has) {
            if let expected { return expected }
            if transactionOnlyKeys.contains(where: f.has) { return .transaction }
            return .renewalInfo
        }
        throw f.origin.relocate(
            DecodeError(
                "unknown-jws-payload",
                "the JWS payload is none of a transaction, renewal info, app transaction or notification", at: 0))
    }

    /// Keys of JWSRenewalInfoDecodedPayload that no transaction carries.
    private static let renewalOnlyKeys: [AppStoreField] = [
        .autoRenewProductId, .renewalDate, .autoRenewStatus, .expirationIntent, .isInBillingRetryPeriod,
        .gracePeriodExpiresDate, .priceIncreaseStatus, .recentSubscriptionStartDate, .renewalPrice,
    ]

    /// Keys of JWSTransactionDecodedPayload that no renewal info carries.
    private static let transactionOnlyKeys: [AppStoreField] = [
        .bundleId, .purchaseDate, .originalPurchaseDate, .type, .quantity, .inAppOwnershipType,
        .webOrderLineItemId, .expiresDate, .revocationDate, .revocationReason, .transactionReason, .price,
        .subscriptionGroupIdentifier,
    ]
}
