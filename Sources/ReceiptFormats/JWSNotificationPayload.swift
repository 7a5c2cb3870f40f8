import IAPBasics
import JSONText

// responseBodyV2DecodedPayload, a server notification [formats.md §4.3; ASL-py
// `models/ResponseBodyV2DecodedPayload.py`, `models/Data.py`].
//
//   key                            example                          -> Receipt
//   notificationType               ONE_TIME_CHARGE, DID_RENEW, …    extras
//   subtype, notificationUUID                                       extras
//   signedDate                                                      creationDate, JWSSigned.signedDate
//   data.signedTransactionInfo     a JWS signed transaction         purchases, nested signature
//   data.environment               Production | Sandbox             environment (else the transaction's)
//   data.bundleId                  "com.example.app"                appID (else the transaction's)
//   data.appAppleId                1234567890                       appItemID (else the transaction's)
//   data.bundleVersion             "42"                             appVersion
//   data.status                    1 active … 5 revoked             extras (subscription_status)
// A notification without `data` (a `summary`, an external purchase) carries no purchase.
enum JWSNotificationPayload {
    static let extraKeys = ExtraName.list(["notificationType", "subtype", "notificationUUID"])
    /// `data.status` is the subscription's, not a verifyReceipt status.
    static let dataExtraKeys = [ExtraName("status", as: "subscription_status")]

    /// Fills `receipt` and returns the nested transaction's signed material, if any.
    static func read(_ f: StoreJSONFields, into receipt: inout Receipt, limits: Limits) throws(DecodeError) -> JWSSigned? {
        f.copy(extraKeys, into: &receipt.extras)
        guard let data = try f.object("data") else { return nil }
        var transaction: Receipt?
        var nested: JWSSigned?
        if let value = data.value("signedTransactionInfo") {
            guard case .string(let text) = value else {
                throw data.fail("bad-field-type", "expected a JWS, found \(value.kindName)", at: "signedTransactionInfo")
            }
            let inString = data.origin.inString(at: data.path + [.key("signedTransactionInfo")], json: nil)
            let inner = try JWSDecoder.decode(Array(text.utf8), origin: inString, limits: limits, nested: true)
            if case .jws(let signed, _) = inner.signed { nested = signed }
            receipt.purchases = inner.purchases
            transaction = inner
        }
        receipt.environment = try data.text("environment") ?? transaction?.environment
        receipt.appID = try data.text("bundleId") ?? transaction?.appID
        receipt.appItemID = try JWSPayloadCommon.appAppleID(data, extras: &receipt.extras) ?? transaction?.appItemID
        receipt.appVersion = try data.text("bundleVersion")
        data.copy(dataExtraKeys, into: &receipt.extras)
        return nested
    }
}
