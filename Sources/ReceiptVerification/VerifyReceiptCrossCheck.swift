import IAPBasics
import ReceiptFormats

/// A stored verifyReceipt JSON is unsigned: anyone can type one (DOMAIN.md "Forgery": a
/// real attack rewrote `expires_date` to 2029 while the embedded `latest_receipt` still
/// said 2020). Its claims are only believed where its own signed receipt says the same.
///
/// Contradictions, first found wins (JSON purchases in their order):
///   the bundle id differs from the signed receipt's
///   the environment differs (Sandbox in the JSON is ProductionSandbox in the receipt)
///   a JSON purchase without a transaction id, or with one the signed receipt lacks
///   a JSON purchase whose product id, original transaction id, quantity, purchase date,
///   expires date or cancellation date differs from the signed entry of the same transaction id (dates to the second;
///   present on one side and absent on the other is a difference)
/// Signed entries the JSON leaves out are fine (a JSON may show fewer transactions).
enum VerifyReceiptCrossCheck {
    /// Why `claims` contradicts `signed`, naming the transaction and the field; nil when it does not.
    static func contradiction(claims: Receipt, signed: Receipt) -> String? {
        if let claimed = claims.appID, let actual = signed.appID, claimed != actual {
            return "bundle id \(claimed) in the JSON, \(actual) in the signed receipt"
        }
        if let claimed = claims.environment, let actual = signed.environment,
            sandboxed(claimed) != sandboxed(actual)
        {
            return "environment \(claimed) in the JSON, \(actual) in the signed receipt"
        }
        var signedByID: [String: Purchase] = [:]
        for purchase in signed.purchases {
            if let id = purchase.transactionID, signedByID[id] == nil { signedByID[id] = purchase }
        }
        for claimed in claims.purchases {
            guard let id = claimed.transactionID else {
                let product = claimed.productID ?? "an unnamed product"
                return "a purchase of \(product) in the JSON has no transaction id to check it by"
            }
            guard let actual = signedByID[id] else {
                return "transaction \(id) is in the JSON but not in the signed receipt"
            }
            if let difference = difference(claimed, actual) {
                return "transaction \(id) \(difference)"
            }
        }
        return nil
    }

    private static func difference(_ claimed: Purchase, _ actual: Purchase) -> String? {
        if claimed.productID != actual.productID {
            return "is product \(text(claimed.productID)) in the JSON, \(text(actual.productID)) in the signed receipt"
        }
        if claimed.originalTransactionID != nil, claimed.originalTransactionID != actual.originalTransactionID {
            return
                "has original transaction \(text(claimed.originalTransactionID)) in the JSON, \(text(actual.originalTransactionID)) in the signed receipt"
        }
        if claimed.quantity != actual.quantity {
            return "has quantity \(claimed.quantity) in the JSON, \(actual.quantity) in the signed receipt"
        }
        let dates: [(String, Timestamp?, Timestamp?)] = [
            ("purchased", claimed.purchaseDate, actual.purchaseDate),
            ("expires", claimed.expiresDate, actual.expiresDate),
            ("cancelled", claimed.cancellationDate, actual.cancellationDate),
        ]
        for (field, claimedDate, actualDate) in dates where claimedDate?.wholeSeconds != actualDate?.wholeSeconds {
            return "\(field) \(text(claimedDate)) in the JSON, \(text(actualDate)) in the signed receipt"
        }
        return nil
    }

    /// Apple's names for the one distinction that matters: production or not.
    private static func sandboxed(_ environment: String) -> Bool {
        environment.lowercased() != "production"
    }

    private static func text(_ value: String?) -> String {
        value ?? "(none)"
    }

    private static func text(_ date: Timestamp?) -> String {
        guard let date else { return "(none)" }
        var seconds = date
        seconds.hasMilliseconds = false
        return seconds.iso8601
    }
}
