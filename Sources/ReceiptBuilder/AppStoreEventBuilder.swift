import IAPBasics
import JSONText

/// Writes what a server logs when the App Store tells it of a purchase after the fact
/// (docs/store-events.md): the notification webhook's body and the App Store Server API's
/// notification-history page, around notifications `JWSBuilder` signed.
///
/// Shapes [apple/app-store-server-library-swift `Models/NotificationHistoryResponse.swift`,
/// `NotificationHistoryResponseItem.swift`, `SendAttemptItem.swift`]:
///
///   webhook body   {"signedPayload": "<JWS>"}
///   history page   {"notificationHistory": [{"signedPayload": "<JWS>",
///                   "sendAttempts": [{"attemptDate": <epoch ms>, "sendAttemptResult": "SUCCESS"}]}, …],
///                   "hasMore": false, "paginationToken": "…"}
public enum AppStoreEventBuilder {
    /// The body Apple POSTs to the notification URL, as a server logs it.
    public static func webhookBody(signedPayload: String) -> String {
        JSONValue.object(JSONObject([("signedPayload", .string(signedPayload))])).jsonText
    }

    /// `notification` signed by `identity` (its transaction and renewal info too), as the webhook body.
    public static func webhookBody(_ notification: JWSBuilder.Notification, with identity: SigningIdentity) throws
        -> String
    {
        webhookBody(signedPayload: try JWSBuilder.notification(notification, with: identity))
    }

    /// One try at delivering a notification to the server.
    public struct SendAttempt: Sendable {
        public var attemptDate: Timestamp
        /// `SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, `CIRCULAR_REDIRECT`, …
        public var result: String

        public init(attemptDate: Timestamp, result: String = "SUCCESS") {
            self.attemptDate = attemptDate
            self.result = result
        }
    }

    /// One notification of the history, with Apple's tries at delivering it.
    public struct HistoryEntry: Sendable {
        /// The notification's JWS, as `JWSBuilder.notification` (or a forger) wrote it.
        public var signedPayload: String
        public var sendAttempts: [SendAttempt]

        public init(signedPayload: String, sendAttempts: [SendAttempt]) {
            self.signedPayload = signedPayload
            self.sendAttempts = sendAttempts
        }

        /// `notification` signed by `identity`, delivered at the first try when it was signed.
        public init(_ notification: JWSBuilder.Notification, signedBy identity: SigningIdentity) throws {
            self.init(
                signedPayload: try JWSBuilder.notification(notification, with: identity),
                sendAttempts: [SendAttempt(attemptDate: notification.signedDate)])
        }

        var json: JSONObject {
            let attempts = sendAttempts.map { attempt in
                JSONValue.object(
                    JSONObject([
                        ("attemptDate", .integer(attempt.attemptDate.millis)),
                        ("sendAttemptResult", .string(attempt.result)),
                    ]))
            }
            return JSONObject([("signedPayload", .string(signedPayload)), ("sendAttempts", .array(attempts))])
        }
    }

    /// One page of Get Notification History, as a server that polls it stores the response.
    public struct NotificationHistoryPage: Sendable {
        public var entries: [HistoryEntry]
        /// true: Apple has more pages, fetched with `paginationToken`.
        public var hasMore: Bool = false
        /// nil leaves it out.
        public var paginationToken: String?

        public init(entries: [HistoryEntry], paginationToken: String? = nil) {
            self.entries = entries
            self.paginationToken = paginationToken
        }

        public var json: JSONObject {
            var o = JSONObject([
                ("notificationHistory", .array(entries.map { .object($0.json) })),
                ("hasMore", .bool(hasMore)),
            ])
            if let paginationToken { o.members.append(("paginationToken", .string(paginationToken))) }
            return o
        }

        /// Compact JSON: one line of a store-event log.
        public var text: String { JSONValue.object(json).jsonText }
    }
}
