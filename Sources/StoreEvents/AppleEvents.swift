import DumpFormats
import IAPBasics
import JSONText
import ReceiptFormats

/// App Store events: Server Notifications V2 (a JWS, signed twice: the notification and its
/// `signedTransactionInfo`) and the transactions of a refund-history page (each a signed
/// transaction). Decoding uses the receipt decoder, so the signed material it keeps is what
/// the receipt verifier checks.
enum AppleEvents {
    /// `notificationType`s that take the money back, and the one that gives it again.
    static let refundTypes: Set<String> = ["REFUND", "REVOKE"]
    static let chargeTypes: Set<String> = ["ONE_TIME_CHARGE", "SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED"]

    static func notification(jws: String, at location: SourceLocation, limits: Limits) throws(UnreadableRecord)
        -> StoreEvent
    {
        try borrowing(jws) { bytes throws(UnreadableRecord) in
            try notification(jws: bytes, at: location, limits: limits)
        }
    }

    /// A notification's JWS read where it lies (a logged webhook body's `signedPayload`).
    static func notification(
        jws: UnsafeRawBufferPointer, at location: SourceLocation,
        limits: Limits
    ) throws(UnreadableRecord) -> StoreEvent {
        let receipt = try decode(jws, "the notification JWS", location, limits)
        guard receipt.jwsType == .notification else {
            throw UnreadableRecord(
                location: location,
                reason: "a JWS \(receipt.jwsType.map { "\($0.rawValue)" } ?? "") that is not a notification")
        }
        guard let type = extra(receipt.extras, "notification_type") else {
            throw UnreadableRecord(location: location, reason: "the notification has no notificationType")
        }
        let p = receipt.purchases.first
        let meaning: StoreEvent.Meaning
        if refundTypes.contains(type) {
            meaning = .refund
        } else if type == "REFUND_REVERSED" {
            meaning = .reversal
        } else if chargeTypes.contains(type), p?.transactionID != nil {
            meaning = .charge
        } else if type == "CONSUMPTION_REQUEST", p?.transactionID != nil {
            meaning = .consumptionRequest
        } else {
            meaning = .other
        }
        // Same notification logged twice: same UUID (and, without one, the same signature).
        let identity =
            extra(receipt.extras, "notification_uuid").map { "apple:n:" + $0 }
            ?? "apple:s:" + String(String(decoding: jws, as: UTF8.self).split(separator: ".").last?.prefix(128) ?? "")
        var e = StoreEvent(store: .apple, type: type, meaning: meaning, identity: identity, location: location)
        fill(&e, receipt, p)
        e.at = meaning == .refund ? (p?.cancellationDate ?? receipt.creationDate) : receipt.creationDate
        if meaning == .consumptionRequest {
            e.notificationUUID = extra(receipt.extras, "notification_uuid")
            e.requestReason = extra(receipt.extras, "consumption_request_reason")
            e.accountToken = p?.accountToken
            e.productType = p?.productType
            e.expiresDate = p?.expiresDate
        }
        return e
    }

    /// One transaction of a refund-history page (`signedTransactions`).
    static func refundHistory(jws: String, at location: SourceLocation, limits: Limits) throws(UnreadableRecord)
        -> StoreEvent
    {
        let receipt = try borrowing(jws) { bytes throws(UnreadableRecord) in
            try decode(bytes, "a refund-history transaction", location, limits)
        }
        guard receipt.jwsType == .transaction, let p = receipt.purchases.first, let txn = p.transactionID else {
            throw UnreadableRecord(
                location: location, reason: "a refund-history entry that is not a signed transaction")
        }
        let revoked = p.cancellationDate
        var e = StoreEvent(
            store: .apple, type: "refund-history", meaning: revoked == nil ? .other : .refund,
            identity: "apple:r:\(txn):\(revoked.map { String($0.millis) } ?? "-")", location: location)
        fill(&e, receipt, p)
        e.at = revoked ?? receipt.creationDate
        return e
    }

    /// `body` with the UTF-8 of `text` where it lies.
    private static func borrowing<T>(
        _ text: String, _ body: (UnsafeRawBufferPointer) throws(UnreadableRecord) -> T
    ) throws(UnreadableRecord) -> T {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(UnreadableRecord) in try body(UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }

    private static func decode(
        _ jws: UnsafeRawBufferPointer, _ what: String, _ location: SourceLocation,
        _ limits: Limits
    ) throws(UnreadableRecord) -> Receipt {
        do {
            return try JWSDecoder.decode(borrowing: jws, limits: limits)
        } catch {
            throw UnreadableRecord(
                location: location,
                reason: "\(what) cannot be read: \(error.reason) (\(error.code) at byte \(error.offset))")
        }
    }

    private static func fill(_ e: inout StoreEvent, _ receipt: Receipt, _ p: Purchase?) {
        e.transactionID = p?.transactionID
        e.originalTransactionID = p?.originalTransactionID
        e.productID = p?.productID
        e.appID = receipt.appID
        e.environment = receipt.environment
        e.signed = receipt
        if let p {
            e.purchaseDate = p.purchaseDate
            e.price = extraInt(p.extras, "price").flatMap(milliunits)
            e.currency = extra(p.extras, "currency")
            e.reason = extraInt(p.extras, "revocation_reason").map {
                $0 == 0 ? "other" : $0 == 1 ? "app-issue" : String($0)
            }
            e.revocationType = extra(p.extras, "revocation_type")
            e.revocationPercentage = extraInt(p.extras, "revocation_percentage")
        }
    }

    /// 4990 milliunits as 4.99, 5000 as 5: the amount has the decimals its value needs, not
    /// the three every milliunit price is written with (which would print `4.990` USD).
    static func milliunits(_ m: Int64) -> DecimalAmount? {
        let whole = m / 1000
        let rest = (m % 1000).magnitude
        var fraction = Substring(String(rest + 1000).dropFirst())
        while fraction.last == "0" { fraction.removeLast() }
        let sign = m < 0 && whole == 0 ? "-" : ""
        return DecimalAmount(fraction.isEmpty ? "\(whole)" : sign + "\(whole).\(fraction)")
    }

    static func extra(_ extras: [(key: String, value: JSONValue)], _ key: String) -> String? {
        extras.last { $0.key == key }?.value.scalarText
    }

    static func extraInt(_ extras: [(key: String, value: JSONValue)], _ key: String) -> Int64? {
        extras.last { $0.key == key }?.value.int64
    }
}
