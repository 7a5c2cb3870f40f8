import IAPBasics
import JSONText

// A stored verifyReceipt response [formats.md §3; GOIAP `IAPResponse`, `IAPResponseForIOS6`].
//
//   top level                      example                          -> Receipt
//   status                         0, 21007 (number or string)      status
//   environment                    Production | Sandbox             environment
//   is-retryable                   true                             extras
//   receipt                        object, below
//   latest_receipt_info            list (iOS 6: one object)         purchases, merged
//   latest_expired_receipt_info    object (iOS 6)                   purchases, merged
//   latest_receipt                 base64 app receipt (iOS 6: a     signed = .verifyReceipt(embedded:)
//                                  legacy transaction receipt)
//     (a stored request's `receipt-data` is read the same way when `latest_receipt` is absent)
//
//   receipt.
//   bundle_id | bid (iOS 6)        "com.example.app"                appID
//   application_version | bvrs     "42"                             appVersion
//   original_application_version   "1.0"                            originalAppVersion
//   app_item_id | adam_id          1234567890 (0 in sandbox)        appItemID
//   receipt_creation_date(_ms)                                      creationDate
//   receipt_type                   Production | ProductionSandbox   extras
//   in_app                         list                             purchases
//   (iOS 6 has no `in_app`: the receipt itself is the transaction)

/// Decodes a stored Apple verifyReceipt JSON response into a `Receipt`.
///
/// The response is unsigned: its claims are only as good as the signed `latest_receipt`
/// they can be checked against. A `latest_receipt` that is present but cannot be decoded
/// is never dropped silently (a forger could swap it for garbage to dodge that
/// cross-check): the receipt then carries no embedded receipt and an extra
/// `latest_receipt_error` `{code, reason, offset}`, which the signature check must treat
/// as an invalid signature — worse than an absent `latest_receipt`, never better than a
/// valid one.
public enum VerifyReceiptDecoder {
    static let receiptExtraKeys = [ExtraName("receipt_type")]
    static let responseExtraKeys = [ExtraName("is-retryable", as: "is_retryable")]

    /// Cheap shape test for the content sniffer: a `status`, a `receipt` object or a
    /// `latest_receipt_info`, which no other receipt kind's JSON carries.
    public static func looksLike(_ obj: JSONObject) -> Bool {
        if let status = obj["status"], status.int64 != nil { return true }
        return obj["receipt"]?.object != nil || obj["latest_receipt_info"] != nil
    }

    /// `bytes`: the JSON text `json` was parsed from, so errors point at the offending
    /// value; without it they point at offset 0.
    public static func decode(
        json: JSONObject, bytes: [UInt8]? = nil,
        limits: Limits = .standard
    ) throws(DecodeError) -> Receipt {
        let top = StoreJSONFields<String>(json, origin: .top(bytes))
        var extras: [(key: String, value: JSONValue)] = []
        let embedded = embeddedReceipt(top, limits: limits, extras: &extras)
        var receipt = Receipt(kind: .appleVerifyReceiptJSON, platform: .ios, signed: .verifyReceipt(embedded: embedded))
        receipt.status = try top.integer("status")
        receipt.environment = try top.text("environment")

        var lists: [[Purchase]] = []
        if let r = try top.object("receipt") {
            receipt.appID = try r.text(first: "bundle_id", "bid")
            receipt.appVersion = try r.text(first: "application_version", "bvrs")
            receipt.originalAppVersion = try r.text("original_application_version")
            receipt.appItemID = try r.integer(first: "app_item_id", "adam_id")
            receipt.creationDate = try r.appleDate("receipt_creation_date")
            try r.copy(receiptExtraKeys, into: &extras)
            if r.contains("in_app") {
                lists.append(try purchases(r.objects("in_app"), limits: limits, top: top))
            } else if r.has("transaction_id") || r.has("product_id") {
                lists.append([try VerifyReceiptPurchase.read(r)])
            }
        }
        lists.append(try purchases(top.objects("latest_expired_receipt_info"), limits: limits, top: top))
        lists.append(try purchases(top.objects("latest_receipt_info"), limits: limits, top: top))
        receipt.purchases = try VerifyReceiptPurchase.merge(lists, limits: limits, at: top.origin.offset(of: []))
        try top.copy(responseExtraKeys, into: &extras)
        receipt.extras = extras
        return receipt
    }

    private static func purchases(
        _ entries: [StoreJSONFields<String>], limits: Limits,
        top: StoreJSONFields<String>
    ) throws(DecodeError) -> [Purchase] {
        guard entries.count <= limits.maxPurchases else {
            throw DecodeError(
                "too-many-purchases", "more than \(limits.maxPurchases) purchases in one response",
                at: top.origin.offset(of: entries.last?.path ?? []))
        }
        var out: [Purchase] = []
        out.reserveCapacity(entries.count)
        for e in entries { out.append(try VerifyReceiptPurchase.read(e)) }
        return out
    }

    /// iOS 7+ responses embed a PKCS#7 app receipt; iOS 6 ones an old-style plist
    /// transaction receipt, which opens with `{`.
    private static func decodeEmbedded(_ bytes: [UInt8], limits: Limits) throws(DecodeError) -> Receipt {
        let first = bytes.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if first == 0x7B { return try LegacyReceiptDecoder.decode(plist: bytes, limits: limits) }
        return try AppReceiptDecoder.decode(der: bytes, limits: limits)
    }

    /// The decoded `latest_receipt` (or `receipt-data`); nil when absent or undecodable,
    /// the latter recorded in `extras` as `latest_receipt_error`.
    private static func embeddedReceipt(
        _ top: StoreJSONFields<String>, limits: Limits,
        extras: inout [(key: String, value: JSONValue)]
    ) -> EmbeddedReceipt? {
        func record(_ failure: DecodeError) -> EmbeddedReceipt? {
            extras.append(
                (
                    "latest_receipt_error",
                    .object(
                        JSONObject([
                            ("code", .string(failure.code)), ("reason", .string(failure.reason)),
                            ("offset", .integer(failure.offset)),
                        ]))
                ))
            return nil
        }
        let key = top.has("latest_receipt") ? "latest_receipt" : "receipt-data"
        let bytes: [UInt8]
        do {
            guard let decoded = try top.base64(key, limits: limits) else { return nil }
            bytes = decoded
        } catch {
            return record(error)
        }
        do {
            return EmbeddedReceipt(try decodeEmbedded(bytes, limits: limits))
        } catch {
            let reason = "\(key): \(error.reason) (at byte \(error.offset) of the decoded receipt)"
            return record(DecodeError(error.code, reason, at: top.origin.offset(of: [.key(key)])))
        }
    }
}
