import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// A REFUND notification of `refundedTransaction()`, signed a minute after the refund.
func refundNotification(uuid: String = "9b0e8a3c-1d2f-4e5a-8b7c-6d5e4f3a2b1c") throws -> JWSBuilder.Notification {
    JWSBuilder.Notification(
        notificationType: "REFUND", notificationUUID: uuid, bundleID: "com.example.game",
        signedDate: try time("2024-06-03T08:01:00Z"), transaction: try refundedTransaction())
}

@Suite("App Store Server Notifications V2")
struct AppStoreNotificationTests {
    @Test("a REFUND notification verifies, outer and nested, and names the refunded transaction")
    func refund() throws {
        let jws = try JWSBuilder.notification(refundNotification(), with: sharedWorld.get().jwsSigner)
        let (receipt, status) = try decodedAndVerified(jws)
        #expect(status.verdict == .valid, "\(status.reason)")
        #expect(receipt.jwsType == .notification)
        #expect(JSONObject(receipt.extras)["notification_type"] == .string("REFUND"))
        #expect(JSONObject(receipt.extras)["notification_uuid"] == .string("9b0e8a3c-1d2f-4e5a-8b7c-6d5e4f3a2b1c"))
        #expect(receipt.purchases.map(\.transactionID) == ["2000000555000111"])
        #expect(receipt.purchases.first?.cancellationDate == (try time("2024-06-03T08:00:00Z")))
        let data = try #require(payloadObject(ofJWS: jws)["data"]?.object)
        #expect(data["signedRenewalInfo"] == nil && data["status"] == nil, "a one-time purchase has neither")
    }

    @Test("a subscription notification carries signed renewal info and a status; the renewal info verifies on its own")
    func renewalInfoAndStatus() throws {
        var transaction = try refundedTransaction()
        transaction.type = "Auto-Renewable Subscription"
        transaction.productID = "com.example.game.vip.monthly"
        let renewal = JWSBuilder.RenewalInfo(
            originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID, renewalDate: nil,
            signedDate: try time("2024-06-03T08:01:00Z"))
        var spec = JWSBuilder.Notification(
            notificationType: "REVOKE", notificationUUID: "r-1", bundleID: "com.example.game",
            signedDate: try time("2024-06-03T08:01:00Z"), transaction: transaction,
            renewalInfo: renewal)
        spec.status = 5
        let jws = try JWSBuilder.notification(spec, with: sharedWorld.get().jwsSigner)
        let (receipt, status) = try decodedAndVerified(jws)
        #expect(status.verdict == .valid, "\(status.reason)")
        #expect(JSONObject(receipt.extras)["subscription_status"] == .integer(5))

        let signedRenewal = try #require(payloadObject(ofJWS: jws)["data"]?.object?["signedRenewalInfo"]?.string)
        let (renewalReceipt, renewalStatus) = try decodedAndVerified(signedRenewal)
        #expect(renewalStatus.verdict == .valid, "\(renewalStatus.reason)")
        #expect(renewalReceipt.jwsType == .renewalInfo)
        #expect(JSONObject(renewalReceipt.extras)["original_transaction_id"] == .string("2000000555000111"))
    }

    @Test("the webhook body holds the notification's JWS alone, and it verifies")
    func webhookBody() throws {
        let body = try parsedObject(
            AppStoreEventBuilder.webhookBody(refundNotification(), with: sharedWorld.get().jwsSigner))
        #expect(body.keys == ["signedPayload"])
        let (receipt, status) = try decodedAndVerified(try #require(body["signedPayload"]?.string))
        #expect(status.verdict == .valid, "\(status.reason)")
        #expect(JSONObject(receipt.extras)["notification_type"] == .string("REFUND"))
    }

    @Test("a history page lists each notification with its delivery tries, and says whether more follow")
    func historyPage() throws {
        let signer = try sharedWorld.get().jwsSigner
        let test = JWSBuilder.Notification(
            notificationType: "TEST", notificationUUID: "t-1", bundleID: "com.example.game",
            signedDate: try time("2024-06-02T00:00:00Z"), transaction: nil)
        var retried = try AppStoreEventBuilder.HistoryEntry(refundNotification(), signedBy: signer)
        retried.sendAttempts.insert(
            AppStoreEventBuilder.SendAttempt(
                attemptDate: try time("2024-06-03T08:01:00Z"),
                result: "NO_RESPONSE"), at: 0)
        var page = AppStoreEventBuilder.NotificationHistoryPage(
            entries: [try AppStoreEventBuilder.HistoryEntry(test, signedBy: signer), retried],
            paginationToken: "57715481")
        page.hasMore = true

        let parsed = try parsedObject(page.text)
        #expect(parsed["hasMore"] == .bool(true))
        #expect(parsed["paginationToken"] == .string("57715481"))
        let history = try #require(parsed["notificationHistory"]?.array)
        let entries = history.compactMap(\.object)
        let types = try entries.map { entry in
            let (receipt, status) = try decodedAndVerified(try #require(entry["signedPayload"]?.string))
            #expect(status.verdict == .valid, "\(status.reason)")
            return JSONObject(receipt.extras)["notification_type"]?.string
        }
        #expect(types == ["TEST", "REFUND"])
        let attempts = entries.map { $0["sendAttempts"]?.array?.compactMap { $0.object?["sendAttemptResult"]?.string } }
        #expect(attempts == [["SUCCESS"], ["NO_RESPONSE", "SUCCESS"]])
        let firstTry = entries.first?["sendAttempts"]?.array?.first?.object?["attemptDate"]
        #expect(firstTry == .integer(try time("2024-06-02T00:00:00Z").millis), "delivered when signed")
    }

    @Test("a last history page without a token leaves paginationToken out")
    func lastHistoryPage() throws {
        let page = AppStoreEventBuilder.NotificationHistoryPage(entries: [])
        #expect(try parsedObject(page.text).keys == ["notificationHistory", "hasMore"])
        #expect(try parsedObject(page.text)["hasMore"] == .bool(false))
    }
}
