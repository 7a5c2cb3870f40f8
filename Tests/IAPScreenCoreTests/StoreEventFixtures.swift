import IAPBasics
import JSONText
import ReceiptBuilder

/// What the store-event worlds of these tests are made of: order rows and App Store
/// notifications about one consumable of `com.example.game`.
enum StoreEventFixtures {
    static let bundle = "com.example.game"

    static func t(_ s: String) -> Timestamp { Timestamp.parse(s) ?? Timestamp(clampingMillis: 0) }

    /// An order row as the orders dump writes it.
    static func row(
        _ id: String, user: String, platform: String, item: String = "gems", txn: String, amount: String,
        currency: String, at: String, status: String, receipt: String
    ) -> JSONObject {
        JSONObject([
            ("order_id", .string(id)), ("user_id", .string(user)), ("item_id", .string(item)),
            ("platform", .string(platform)), ("transaction_id", .string(txn)), ("amount", .string(amount)),
            ("currency", .string(currency)), ("status", .string(status)), ("created_at", .string(at)),
            ("receipt", .string(receipt)),
        ])
    }

    /// A notification of `type` about transaction `txn` of `com.x.gems`, signed by `signer`;
    /// `revoked` gives the transaction a revocation date and `reason`.
    static func notification(
        _ type: String, uuid: String, txn: String, revoked: String?, reason: Int64,
        signedDate: String, signer: TestPKI
    ) throws -> String {
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "com.x.gems",
            type: "Consumable", purchaseDate: t("2024-02-29T00:00:00Z"),
            signedDate: t("2024-03-04T00:00:00Z"))
        if let revoked {
            tx.revocationDate = t(revoked)
            tx.revocationReason = reason
        }
        return try JWSBuilder.notification(
            JWSBuilder.Notification(
                notificationType: type, notificationUUID: uuid, bundleID: bundle,
                signedDate: t(signedDate), transaction: tx),
            with: signer.jwsSigner)
    }

    /// A refund request (`CONSUMPTION_REQUEST`) about transaction `txn` of `com.x.gems`, signed
    /// at `signedDate` (answer by 12 hours later) by `signer`.
    static func consumptionRequest(
        uuid: String, txn: String, token: String? = nil, bundle: String = bundle,
        signedDate: String = "2024-03-04T08:00:00Z", signer: TestPKI
    ) throws -> String {
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "com.x.gems", type: "Consumable",
            purchaseDate: t("2024-03-01T09:00:00Z"), signedDate: t("2024-03-01T09:00:00Z"))
        tx.appAccountToken = token
        var n = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: uuid, bundleID: bundle,
            signedDate: t(signedDate), transaction: tx)
        n.consumptionRequestReason = "UNSATISFIED_WITH_PURCHASE"
        return try JWSBuilder.notification(n, with: signer.jwsSigner)
    }
}
