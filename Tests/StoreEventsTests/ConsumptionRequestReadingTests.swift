import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import StoreEvents
import Testing

@Suite("Reading a refund request: Apple's CONSUMPTION_REQUEST")
struct ConsumptionRequestReadingTests {
    private func request(
        uuid: String, reason: String?, type: String = "Consumable", token: String? = nil, expires: Timestamp? = nil,
        transaction: String? = "2000000000000301"
    ) throws -> String {
        let tx = transaction.map { txn in
            var tx = JWSBuilder.Transaction(
                transactionID: txn, bundleID: EventWorld.bundle, productID: "gems_550", type: type,
                purchaseDate: EventWorld.bought, signedDate: EventWorld.bought)
            tx.originalTransactionID = "2000000000000300"
            tx.appAccountToken = token
            tx.expiresDate = expires
            return tx
        }
        var n = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: uuid, bundleID: EventWorld.bundle,
            signedDate: EventWorld.refunded, transaction: tx)
        n.consumptionRequestReason = reason
        return try JWSBuilder.notification(n, with: try EventWorld.pki.get().jwsSigner)
    }

    @Test("it reads as a consumption request: its uuid, reason, transaction, account token, product type and time")
    func fields() throws {
        let token = "5b0c3e9e-4a7f-4d55-9a8e-2f1f6a0c1d2e"
        let jws = try request(uuid: "c0a1-0001", reason: "UNINTENDED_PURCHASE", token: token)
        let read = try EventWorld.read("{\"signedPayload\":\"\(jws)\"}\n")
        #expect(read.problems.isEmpty)
        let e = try #require(read.events.first)
        #expect(e.type == "CONSUMPTION_REQUEST")
        #expect(e.meaning == .consumptionRequest)
        #expect(e.notificationUUID == "c0a1-0001")
        #expect(e.requestReason == "UNINTENDED_PURCHASE")
        #expect(e.transactionID == "2000000000000301")
        #expect(e.originalTransactionID == "2000000000000300")
        #expect(e.productID == "gems_550")
        #expect(e.accountToken == token)
        #expect(e.productType == .consumable)
        #expect(e.at == EventWorld.refunded)
        #expect(e.signed != nil, "kept for the verifier: a request is answered only when it verifies")
    }

    @Test("a non-renewing subscription's request keeps the transaction's expiry")
    func expiry() throws {
        let expires = Timestamp(clampingMillis: EventWorld.bought.millis + 30 * 86_400_000)
        let jws = try request(uuid: "c0a1-0002", reason: "OTHER", type: "Non-Renewing Subscription", expires: expires)
        let e = try #require(try EventWorld.read(jws + "\n").events.first)
        #expect(e.productType == .nonRenewing)
        #expect(e.expiresDate == expires)
    }

    @Test("a request that names no transaction is no request anyone can answer: counted by its type only")
    func noTransaction() throws {
        let jws = try request(uuid: "c0a1-0003", reason: "LEGAL", transaction: nil)
        let e = try #require(try EventWorld.read(jws + "\n").events.first)
        #expect(e.type == "CONSUMPTION_REQUEST")
        #expect(e.meaning == .other)
    }
}
