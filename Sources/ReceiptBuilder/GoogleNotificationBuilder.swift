import IAPBasics
import JSONText

/// Writes Google Play Real-time developer notifications as Cloud Pub/Sub pushes them to our
/// server and the server logs them (docs/store-events.md): the decoded DeveloperNotification, or the
/// push body around it. Unsigned: Google signs neither.
///
/// Shapes [developer.android.com/google/play/billing/rtdn-reference;
/// cloud.google.com/pubsub/docs/push]; `eventTimeMillis` is an int64 written as a string:
///
///   DeveloperNotification  {"version": "1.0", "packageName": "com.example.game",
///                           "eventTimeMillis": "1717401600000", <exactly one of>}
///     "oneTimeProductNotification": {"version": "1.0", "notificationType": 1, "purchaseToken": "…", "sku": "…"}
///     "subscriptionNotification":   {"version": "1.0", "notificationType": 12, "purchaseToken": "…",
///                                    "subscriptionId": "…"}
///     "voidedPurchaseNotification": {"purchaseToken": "…", "orderId": "GPA.…", "productType": 2, "refundType": 1}
///     "testNotification":           {"version": "1.0"}
///   push body  {"message": {"attributes": {}, "data": "<standard base64 of the DeveloperNotification>",
///               "messageId": "…", "message_id": "…", "publishTime": "2024-06-03T08:00:05.000Z",
///               "publish_time": "…"}, "subscription": "projects/…/subscriptions/…"}
public enum GoogleNotificationBuilder {
    /// What a notification is about; one case each, so a notification can never carry two.
    public enum Content: Sendable {
        /// `notificationType` 1 purchased, 2 canceled (a pending purchase that never completed).
        case oneTimeProduct(notificationType: Int64, purchaseToken: String, sku: String)
        /// `notificationType` 1 recovered, 2 renewed, 3 canceled, 4 purchased, 5 on hold, 6 in grace
        /// period, 7 restarted, 9 deferred, 10 paused, 11 pause schedule changed, 12 revoked,
        /// 13 expired, 20 pending purchase canceled, …
        case subscription(notificationType: Int64, purchaseToken: String, subscriptionID: String)
        /// `productType` 1 subscription, 2 one-time; `refundType` 1 full, 2 quantity-based partial.
        /// A nil `orderID` leaves it out, so the token alone names the purchase.
        case voidedPurchase(purchaseToken: String, orderID: String?, productType: Int64, refundType: Int64)
        /// What the Play Console sends to try the set-up.
        case test

        /// The member's name and value in a DeveloperNotification.
        var member: (key: String, value: JSONValue) {
            let version: (key: String, value: JSONValue) = ("version", .string("1.0"))
            switch self {
            case .oneTimeProduct(let type, let token, let sku):
                return (
                    "oneTimeProductNotification",
                    .object(
                        JSONObject([
                            version, ("notificationType", .integer(type)), ("purchaseToken", .string(token)),
                            ("sku", .string(sku)),
                        ]))
                )
            case .subscription(let type, let token, let subscriptionID):
                return (
                    "subscriptionNotification",
                    .object(
                        JSONObject([
                            version, ("notificationType", .integer(type)), ("purchaseToken", .string(token)),
                            ("subscriptionId", .string(subscriptionID)),
                        ]))
                )
            case .voidedPurchase(let token, let orderID, let productType, let refundType):
                var o = JSONObject([("purchaseToken", .string(token))])
                if let orderID { o.members.append(("orderId", .string(orderID))) }
                o.members.append(contentsOf: [
                    ("productType", .integer(productType)), ("refundType", .integer(refundType)),
                ])
                return ("voidedPurchaseNotification", .object(o))
            case .test:
                return ("testNotification", .object(JSONObject([version])))
            }
        }
    }

    /// The notification as Google publishes it, and as a server logs it once decoded.
    public struct DeveloperNotification: Sendable {
        public var packageName: String
        public var eventTime: Timestamp
        public var content: Content

        public init(packageName: String, eventTime: Timestamp, content: Content) {
            self.packageName = packageName
            self.eventTime = eventTime
            self.content = content
        }

        public var json: JSONObject {
            JSONObject([
                ("version", .string("1.0")),
                ("packageName", .string(packageName)),
                ("eventTimeMillis", .string(String(eventTime.millis))),
                content.member,
            ])
        }

        /// Compact JSON: one line of a store-event log, and the bytes a push body carries.
        public var text: String { JSONValue.object(json).jsonText }
    }

    /// The body Pub/Sub POSTs to our push endpoint, as a server logs it.
    public struct PushBody: Sendable {
        public var notification: DeveloperNotification
        /// Pub/Sub's id of the message (written as `messageId` and `message_id`): the same
        /// notification logged twice has the same id.
        public var messageID: String
        public var publishTime: Timestamp
        public var subscription: String = "projects/example-project/subscriptions/play-notifications"
        /// Pub/Sub message attributes; Play sets none.
        public var attributes: [(key: String, value: String)] = []

        /// `publishTime` nil: published when the event happened.
        public init(notification: DeveloperNotification, messageID: String, publishTime: Timestamp? = nil) {
            self.notification = notification
            self.messageID = messageID
            self.publishTime = publishTime ?? notification.eventTime
        }

        public var json: JSONObject {
            // Pub/Sub writes RFC 3339 with the fraction of the second.
            let published = JSONValue.string(
                Timestamp(clampingMillis: publishTime.millis, hasMilliseconds: true).iso8601)
            let message = JSONObject([
                ("attributes", .object(JSONObject(attributes.map { ($0.key, .string($0.value)) }))),
                ("data", .string(Base64.encode(Array(notification.text.utf8)))),
                ("messageId", .string(messageID)),
                ("message_id", .string(messageID)),
                ("publishTime", published),
                ("publish_time", published),
            ])
            return JSONObject([("message", .object(message)), ("subscription", .string(subscription))])
        }

        /// Compact JSON: one line of a store-event log.
        public var text: String { JSONValue.object(json).jsonText }
    }
}
