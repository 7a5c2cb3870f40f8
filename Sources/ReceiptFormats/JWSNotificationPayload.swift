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
//   data.signedRenewalInfo         a JWS renewal info               extras (renewal_info), nested signature
//   data.environment               Production | Sandbox             environment (else the transaction's,
//                                                                   else the renewal info's)
//   data.bundleId                  "com.example.app"                appID (else the transaction's)
//   data.appAppleId                1234567890                       appItemID (else the transaction's)
//   data.bundleVersion             "42"                             appVersion
//   data.status                    1 active … 5 revoked             extras (subscription_status)
//   data.consumptionRequestReason  UNINTENDED_PURCHASE, LEGAL, …     extras (consumption_request_reason)
// A notification without `data` (a `summary`, an external purchase) carries no purchase.
enum JWSNotificationPayload {
    static let extraKeys = ExtraName<AppStoreField>.list([.notificationType, .subtype, .notificationUUID])
    /// `data.status` is the subscription's, not a verifyReceipt status.
    static let dataExtraKeys: [ExtraName<AppStoreField>] = [
        ExtraName(.status, as: "subscription_status"),
        ExtraName(.consumptionRequestReason, as: "consumption_request_reason"),
    ]

    /// Fills `receipt` and returns the signed material of the JWS `data` nests, in `Field` order.
    static func read(
        _ f: StoreJSONFields<AppStoreField>, into receipt: inout Receipt,
        limits: Limits
    ) throws(DecodeError) -> [NestedJWS] {
        try f.copy(extraKeys, into: &receipt.extras)
        guard let data = try f.object(.data) else { return [] }
        var nested: [NestedJWS] = []
        var transaction: Receipt?
        var renewal: Receipt?
        for field in NestedJWS.Field.allCases {
            guard let inner = try decodeNested(field, in: data, limits: limits) else { continue }
            if case .jws(let signed, _) = inner.signed { nested.append(NestedJWS(field: field, signed: signed)) }
            switch field {
            case .signedTransactionInfo: transaction = inner
            case .signedRenewalInfo: renewal = inner
            }
        }
        receipt.purchases = transaction?.purchases ?? []
        receipt.environment = try data.text(.environment) ?? transaction?.environment ?? renewal?.environment
        receipt.appID = try data.text(.bundleId) ?? transaction?.appID
        receipt.appItemID = try JWSPayloadCommon.appAppleID(data, extras: &receipt.extras) ?? transaction?.appItemID
        receipt.appVersion = try data.text(.bundleVersion)
        try data.copy(dataExtraKeys, into: &receipt.extras)
        if let renewal { receipt.extras.append(("renewal_info", .object(renewalInfo(renewal)))) }
        return nested
    }

    /// The JWS under `field`, decoded as the payload that key holds; nil when absent.
    private static func decodeNested(
        _ field: NestedJWS.Field, in data: StoreJSONFields<AppStoreField>,
        limits: Limits
    ) throws(DecodeError) -> Receipt? {
        let inString = data.origin.inString(at: data.path + [.key(field.rawValue)], json: nil)
        // Read where it lies in the payload, when written without escapes (Apple's are).
        let written = try data.withWrittenText(field.member) { text throws(DecodeError) in
            try JWSDecoder.decode(text, origin: inString, limits: limits, in: field)
        }
        if let written { return written }
        guard let value = try data.value(field.member) else { return nil }
        guard case .string(let text) = value else {
            throw data.fail("bad-field-type", "expected a JWS, found \(value.kindName)", at: field.member)
        }
        // Read where it lies in the string.
        var jws = text
        let result = jws.withUTF8 { utf8 in
            Result { () throws(DecodeError) in
                try JWSDecoder.decode(UnsafeRawBufferPointer(utf8), origin: inString, limits: limits, in: field)
            }
        }
        return try result.get()
    }

    /// What renewal info says as its own `decode` would print it: environment, then its extras.
    private static func renewalInfo(_ renewal: Receipt) -> JSONObject {
        var o = JSONObject()
        if let environment = renewal.environment { o.members.append(("environment", .string(environment))) }
        o.members.append(contentsOf: renewal.extras)
        return o
    }
}
