import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

private typealias Builder = GoogleNotificationBuilder

/// The four notification members a DeveloperNotification may carry, exactly one at a time.
private let notificationKeys: Set = [
    "oneTimeProductNotification", "subscriptionNotification", "voidedPurchaseNotification", "testNotification",
]

private func notification(_ content: Builder.Content) throws -> Builder.DeveloperNotification {
    Builder.DeveloperNotification(
        packageName: "com.example.game", eventTime: try time("2024-06-03T08:00:00Z"),
        content: content)
}

@Suite("Google Real-time developer notifications")
struct GoogleNotificationTests {
    @Test("a voided-purchase notification reads back with its package, event time as a string, and the voided order")
    func voidedPurchase() throws {
        let content = Builder.Content.voidedPurchase(
            purchaseToken: "token-abc", orderID: "GPA.3372-4150-9088-12345",
            productType: 2, refundType: 1)
        let parsed = try parsedObject(notification(content).text)
        #expect(parsed["version"] == .string("1.0"))
        #expect(parsed["packageName"] == .string("com.example.game"))
        #expect(parsed["eventTimeMillis"] == .string(String(try time("2024-06-03T08:00:00Z").millis)))
        let voided = try #require(parsed["voidedPurchaseNotification"]?.object)
        #expect(voided["orderId"] == .string("GPA.3372-4150-9088-12345"))
        #expect(voided["purchaseToken"] == .string("token-abc"))
        #expect(voided["productType"] == .integer(2))
        #expect(voided["refundType"] == .integer(1))
    }

    @Test("every kind carries exactly one of the four notifications, with the fields it names")
    func exactlyOneKind() throws {
        let kinds: [(Builder.Content, String, JSONObject)] = [
            (
                .oneTimeProduct(notificationType: 1, purchaseToken: "t1", sku: "gems_550"),
                "oneTimeProductNotification",
                JSONObject([
                    ("version", .string("1.0")), ("notificationType", .integer(1)), ("purchaseToken", .string("t1")),
                    ("sku", .string("gems_550")),
                ])
            ),
            (
                .subscription(notificationType: 12, purchaseToken: "t2", subscriptionID: "vip_monthly"),
                "subscriptionNotification",
                JSONObject([
                    ("version", .string("1.0")), ("notificationType", .integer(12)), ("purchaseToken", .string("t2")),
                    ("subscriptionId", .string("vip_monthly")),
                ])
            ),
            (
                .voidedPurchase(purchaseToken: "t3", orderID: nil, productType: 1, refundType: 2),
                "voidedPurchaseNotification",
                JSONObject([
                    ("purchaseToken", .string("t3")), ("productType", .integer(1)), ("refundType", .integer(2)),
                ])
            ),
            (.test, "testNotification", JSONObject([("version", .string("1.0"))])),
        ]
        for (content, key, expected) in kinds {
            let parsed = try parsedObject(notification(content).text)
            #expect(Set(parsed.keys).intersection(notificationKeys) == [key])
            #expect(parsed[key]?.object == expected, "\(key)")
        }
    }

    @Test("a push body's data is standard base64 of the DeveloperNotification, beside its message id and publish time")
    func pushBody() throws {
        let revoked = try notification(
            .subscription(
                notificationType: 12, purchaseToken: "token-abc",
                subscriptionID: "vip_monthly"))
        let body = Builder.PushBody(
            notification: revoked, messageID: "2070443601311540",
            publishTime: try time("2024-06-03T08:00:05Z"))
        let parsed = try parsedObject(body.text)
        #expect(parsed["subscription"] == .string("projects/example-project/subscriptions/play-notifications"))
        let message = try #require(parsed["message"]?.object)
        #expect(message["attributes"] == .object(JSONObject()))
        #expect(message["messageId"] == .string("2070443601311540"))
        #expect(message["message_id"] == .string("2070443601311540"))
        #expect(message["publishTime"] == .string("2024-06-03T08:00:05.000Z"))
        #expect(message["publish_time"] == .string("2024-06-03T08:00:05.000Z"))

        let data = try Base64.decode(try #require(message["data"]?.string), alphabet: .standard)
        #expect(String(decoding: data, as: UTF8.self) == revoked.text)
        let decoded = try #require(JSONParser.parse(data).object)
        #expect(decoded["subscriptionNotification"]?.object?["notificationType"] == .integer(12))
    }

    @Test("a push body without a publish time was published when the event happened")
    func publishedAtEventTime() throws {
        let body = Builder.PushBody(notification: try notification(.test), messageID: "1")
        let message = try #require(parsedObject(body.text)["message"]?.object)
        #expect(message["publishTime"] == .string("2024-06-03T08:00:00.000Z"))
    }
}
