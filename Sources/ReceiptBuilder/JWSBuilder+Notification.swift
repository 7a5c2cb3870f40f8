import IAPBasics
import JSONText

extension JWSBuilder {
    /// The notification and, inside it, its transaction: both signed by `identity`.
    public static func notification(_ spec: Notification, with identity: SigningIdentity,
                                    keyID: String? = nil) throws -> String {
        let signedTransaction = try spec.transaction.map { try transaction($0, with: identity, keyID: keyID) }
        return try sign(payload: spec.payload(signedTransactionInfo: signedTransaction), with: identity, keyID: keyID)
    }

    /// A server notification V2 (responseBodyV2DecodedPayload), optionally carrying a transaction.
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

        public init(notificationType: String, subtype: String? = nil, notificationUUID: String, bundleID: String,
                    signedDate: Timestamp, transaction: Transaction?) {
            self.notificationType = notificationType
            self.subtype = subtype
            self.notificationUUID = notificationUUID
            self.bundleID = bundleID
            self.signedDate = signedDate
            self.transaction = transaction
        }

        /// The payload around an already signed transaction.
        public func payload(signedTransactionInfo: String?) -> JSONObject {
            var data = JSONObject()
            if let appAppleID { data.members.append(("appAppleId", .integer(appAppleID))) }
            data.members.append(("bundleId", .string(bundleID)))
            if let bundleVersion { data.members.append(("bundleVersion", .string(bundleVersion))) }
            data.members.append(("environment", .string(environment)))
            if let signedTransactionInfo { data.members.append(("signedTransactionInfo", .string(signedTransactionInfo))) }
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
