import IAPBasics
import JSONText

extension JWSBuilder {
    /// The notification and, inside it, its transaction and renewal info: all signed by
    /// `identity`, as Apple signs all three with the same key.
    public static func notification(
        _ spec: Notification, with identity: SigningIdentity,
        keyID: String? = nil
    ) throws -> String {
        let signedTransaction = try spec.transaction.map { try transaction($0, with: identity, keyID: keyID) }
        let signedRenewal = try spec.renewalInfo.map { try renewalInfo($0, with: identity, keyID: keyID) }
        let payload = spec.payload(signedTransactionInfo: signedTransaction, signedRenewalInfo: signedRenewal)
        return try sign(payload: payload, with: identity, keyID: keyID)
    }

    /// A server notification V2 (responseBodyV2DecodedPayload), optionally carrying a
    /// transaction and, for a subscription, its renewal info and status.
    public struct Notification: Sendable {
        /// `ONE_TIME_CHARGE`, `SUBSCRIBED`, `DID_RENEW`, `REFUND`, …
        public var notificationType: String
        public var subtype: String?
        public var notificationUUID: String
        public var signedDate: Timestamp
        public var environment: String = "Production"
        public var bundleID: String
        public var appAppleID: Int64?
        public var bundleVersion: String?
        public var transaction: Transaction?
        /// Written as `data.signedRenewalInfo`, a JWS of its own.
        public var renewalInfo: RenewalInfo?
        /// `data.status`, the subscription's: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int64?
        /// `data.consumptionRequestReason` of a `CONSUMPTION_REQUEST`: `UNINTENDED_PURCHASE`, `OTHER`, …
        public var consumptionRequestReason: String?

        public init(
            notificationType: String, subtype: String? = nil, notificationUUID: String, bundleID: String,
            signedDate: Timestamp, transaction: Transaction?, renewalInfo: RenewalInfo? = nil
        ) {
            self.notificationType = notificationType
            self.subtype = subtype
            self.notificationUUID = notificationUUID
            self.bundleID = bundleID
            self.signedDate = signedDate
            self.transaction = transaction
            self.renewalInfo = renewalInfo
        }

        /// The payload around an already signed transaction and renewal info (a test may
        /// pass forged ones); `data` keeps Apple's order: the JWS, then `status`.
        public func payload(signedTransactionInfo: String?, signedRenewalInfo: String? = nil) -> JSONObject {
            var data = JSONObject()
            if let appAppleID { data.members.append(("appAppleId", .integer(appAppleID))) }
            data.members.append(("bundleId", .string(bundleID)))
            if let bundleVersion { data.members.append(("bundleVersion", .string(bundleVersion))) }
            data.members.append(("environment", .string(environment)))
            if let signedTransactionInfo {
                data.members.append(("signedTransactionInfo", .string(signedTransactionInfo)))
            }
            if let signedRenewalInfo { data.members.append(("signedRenewalInfo", .string(signedRenewalInfo))) }
            if let status { data.members.append(("status", .integer(status))) }
            if let consumptionRequestReason {
                data.members.append(("consumptionRequestReason", .string(consumptionRequestReason)))
            }
            var o = JSONObject([("notificationType", .string(notificationType))])
            if let subtype { o.members.append(("subtype", .string(subtype))) }
            o.members.append(contentsOf: [
                ("notificationUUID", .string(notificationUUID)),
                ("data", .object(data)),
                ("version", .string("2.0")),
                ("signedDate", JWSBuilder.date(signedDate, fraction: nil)),
            ])
            return o
        }
    }
}
