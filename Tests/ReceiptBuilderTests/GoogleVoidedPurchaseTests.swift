import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

/// A purchase bought on 1 June 2024 at 10:00 UTC and charged back two days later.
private func chargeback(order: String? = "GPA.3372-4150-9088-12345", token: String = "token-abc") throws
    -> GoogleVoidedPurchaseBuilder.VoidedPurchase
{
    var voided = GoogleVoidedPurchaseBuilder.VoidedPurchase(
        purchaseToken: token, orderID: order,
        purchaseTime: try time("2024-06-01T10:00:00Z"),
        voidedTime: try time("2024-06-03T08:00:00Z"))
    voided.voidedSource = 2
    voided.voidedReason = 7
    return voided
}

@Suite("Google voided purchases")
struct GoogleVoidedPurchaseTests {
    @Test("a voided purchase reads back with its order, token, times as int64 strings, source and reason")
    func voidedPurchase() throws {
        let parsed = try parsedObject(chargeback().text)
        #expect(parsed["kind"] == .string("androidpublisher#voidedPurchase"))
        #expect(parsed["orderId"] == .string("GPA.3372-4150-9088-12345"))
        #expect(parsed["purchaseToken"] == .string("token-abc"))
        #expect(parsed["purchaseTimeMillis"] == .string(String(try time("2024-06-01T10:00:00Z").millis)))
        #expect(parsed["voidedTimeMillis"] == .string(String(try time("2024-06-03T08:00:00Z").millis)))
        #expect(parsed["voidedSource"] == .integer(2))
        #expect(parsed["voidedReason"] == .integer(7))
        #expect(parsed["voidedQuantity"] == nil, "only a quantity-based partial refund names a quantity")
    }

    @Test("a partial refund names its quantity; a test purchase has only its token")
    func quantityAndNoOrder() throws {
        var partial = try chargeback()
        partial.voidedQuantity = 2
        #expect(try parsedObject(partial.text)["voidedQuantity"] == .integer(2))
        let test = try parsedObject(chargeback(order: nil).text)
        #expect(test["orderId"] == nil)
        #expect(test["purchaseToken"] == .string("token-abc"))
    }

    @Test("a list page counts its purchases and carries the next page's token; the last page has none")
    func listPage() throws {
        let purchases = [try chargeback(), try chargeback(order: "GPA.3372-4150-9088-67890", token: "token-def")]
        let page = try parsedObject(
            GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: purchases, nextPageToken: "next-1").text)
        #expect(page["pageInfo"]?.object?["totalResults"] == .integer(2))
        #expect(page["pageInfo"]?.object?["resultPerPage"] == .integer(2))
        #expect(page["pageInfo"]?.object?["startIndex"] == .integer(0))
        #expect(page["tokenPagination"]?.object?["nextPageToken"] == .string("next-1"))
        let orders = try #require(page["voidedPurchases"]?.array).map { $0.object?["orderId"]?.string }
        #expect(orders == ["GPA.3372-4150-9088-12345", "GPA.3372-4150-9088-67890"])

        let last = try parsedObject(GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: purchases).text)
        #expect(last["tokenPagination"] == nil)
    }

    @Test("the same spec writes the same text")
    func deterministic() throws {
        let page = GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: [try chargeback()], nextPageToken: "n")
        #expect(
            page.text
                == GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: [try chargeback()], nextPageToken: "n").text)
    }
}
