import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

/// A transaction Apple refunded, as the refund history and REFUND notifications carry it.
func refundedTransaction(id: String = "2000000555000111", refundedAt: String = "2024-06-03T08:00:00Z") throws
    -> JWSBuilder.Transaction
{
    var spec = JWSBuilder.Transaction(
        transactionID: id, bundleID: "com.example.game", productID: "com.example.game.gems550",
        purchaseDate: try time("2024-06-01T10:00:00Z"), signedDate: try time(refundedAt))
    spec.revocationDate = try time(refundedAt)
    spec.revocationReason = 1
    spec.revocationType = "REFUND_PRORATED"
    spec.revocationPercentage = 50_000
    return spec
}

@Suite("App Store refunds")
struct AppStoreRefundHistoryTests {
    @Test("a refunded transaction says when, why, how and how much, and still verifies")
    func refundedTransactionFields() throws {
        let jws = try JWSBuilder.transaction(refundedTransaction(), with: sharedWorld.get().jwsSigner)
        let (receipt, status) = try decodedAndVerified(jws)
        #expect(status.verdict == .valid, "\(status.reason)")
        let purchase = try #require(receipt.purchases.first)
        #expect(purchase.transactionID == "2000000555000111")
        #expect(purchase.cancellationDate == (try time("2024-06-03T08:00:00Z")))
        #expect(JSONObject(purchase.extras)["revocation_reason"] == .integer(1))
        #expect(JSONObject(purchase.extras)["revocation_type"] == .string("REFUND_PRORATED"))
        #expect(try payloadObject(ofJWS: jws)["revocationPercentage"] == .integer(50_000))
    }

    @Test("a transaction nobody refunded carries no revocation keys")
    func unrefundedTransaction() throws {
        let spec = JWSBuilder.Transaction(
            transactionID: "1", bundleID: "com.example.game", productID: "p",
            purchaseDate: try time("2024-06-01T10:00:00Z"),
            signedDate: try time("2024-06-01T10:00:00Z"))
        let keys = try payloadObject(ofJWS: JWSBuilder.transaction(spec, with: sharedWorld.get().jwsSigner)).keys
        #expect(keys.filter { $0.hasPrefix("revocation") }.isEmpty)
    }

    @Test("a refund history page lists signed refunded transactions that each verify, and its revision")
    func refundHistoryPage() throws {
        let refunds = [
            try refundedTransaction(id: "2000000555000111"),
            try refundedTransaction(id: "2000000555000222", refundedAt: "2024-06-04T09:30:00Z"),
        ]
        var page = try AppStoreEventBuilder.RefundHistoryPage(
            transactions: refunds, signedBy: sharedWorld.get().jwsSigner,
            revision: "revision-2")
        page.hasMore = true

        let parsed = try parsedObject(page.text)
        #expect(parsed["revision"] == .string("revision-2"))
        #expect(parsed["hasMore"] == .bool(true))
        let signed = try #require(parsed["signedTransactions"]?.array).compactMap(\.string)
        let purchases = try signed.flatMap { jws in
            let (receipt, status) = try decodedAndVerified(jws)
            #expect(status.verdict == .valid, "\(status.reason)")
            return receipt.purchases
        }
        #expect(purchases.map(\.transactionID) == ["2000000555000111", "2000000555000222"])
        #expect(
            purchases.map(\.cancellationDate) == [try time("2024-06-03T08:00:00Z"), try time("2024-06-04T09:30:00Z")])
    }
}
