import IAPBasics
import JSONText

/// The inner `purchase-info` plist of an iOS 6 receipt into the receipt and its one purchase.
///
/// formats.md §2 (voltrue2/in-app-purchase, CargoBay, AppReceiptValidator vectors); every value a string:
///   transaction-id, original-transaction-id, product-id, item-id, bid (bundle id),
///   bvrs (bundle version), quantity, purchase-date ("2012-04-30 15:05:55 Etc/GMT"),
///   purchase-date-ms, purchase-date-pst, original-purchase-date(-ms/-pst),
///   unique-identifier, unique-vendor-identifier, and for subscriptions
///   expires-date (epoch ms), expires-date-formatted(-pst), web-order-line-item-id
enum LegacyReceiptPurchaseInfo {
    /// Keys read into typed fields, and the date spellings they supersede.
    private static let consumed: Set<String> = [
        "transaction-id", "original-transaction-id", "product-id", "bid", "bvrs", "quantity", "app-item-id",
        "web-order-line-item-id",
        "purchase-date", "purchase-date-ms", "purchase-date-pst",
        "original-purchase-date", "original-purchase-date-ms", "original-purchase-date-pst",
        "expires-date", "expires-date-formatted", "expires-date-formatted-pst",
        "cancellation-date", "cancellation-date-ms", "cancellation-date-pst",
    ]

    static func read(_ info: OldStylePlist, into receipt: inout Receipt) throws(DecodeError) {
        guard let entries = info.entries else {
            throw DecodeError("not-legacy-receipt", "purchase-info is not a dictionary", at: info.offset)
        }
        var purchase = Purchase()
        purchase.transactionID = try text(info, "transaction-id")
        purchase.originalTransactionID = try text(info, "original-transaction-id")
        purchase.productID = try text(info, "product-id")
        purchase.webOrderLineItemID = try text(info, "web-order-line-item-id")
        receipt.appID = try text(info, "bid")
        receipt.appVersion = try text(info, "bvrs")
        if let quantity = try integer(info, "quantity") { purchase.quantity = quantity }
        receipt.appItemID = try integer(info, "app-item-id")
        purchase.purchaseDate = try date(info, millis: "purchase-date-ms", text: "purchase-date")
        purchase.originalPurchaseDate = try date(
            info, millis: "original-purchase-date-ms", text: "original-purchase-date")
        purchase.expiresDate = try date(info, millis: "expires-date", text: "expires-date-formatted")
        purchase.cancellationDate = try date(info, millis: "cancellation-date-ms", text: "cancellation-date")
        for entry in entries where !consumed.contains(entry.key) {
            if let value = entry.value.string { purchase.extras.append((jsonKey(entry.key), .string(value))) }
        }
        // The chain of these long-expired certificates is checked at the purchase date.
        receipt.creationDate = purchase.purchaseDate
        receipt.purchases = [purchase]
    }

    /// `unique-vendor-identifier` -> `unique_vendor_identifier`, as `decode` prints keys.
    static func jsonKey(_ key: String) -> String {
        String(key.map { $0 == "-" ? "_" : $0 })
    }

    /// A string value; nil when absent or empty.
    private static func text(_ info: OldStylePlist, _ key: String) throws(DecodeError) -> String? {
        guard let value = info[key] else { return nil }
        guard let text = value.string else {
            throw DecodeError("bad-field", "'\(key)' must be a string", at: value.offset)
        }
        return text.isEmpty ? nil : text
    }

    private static func integer(_ info: OldStylePlist, _ key: String) throws(DecodeError) -> Int64? {
        guard let text = try text(info, key) else { return nil }
        guard let value = Int64(text) else {
            throw DecodeError(
                "bad-number", "'\(key)' = '\(text.prefix(40))' is not an integer", at: info[key]?.offset ?? 0)
        }
        return value
    }

    /// Epoch milliseconds when the `millis` key holds digits, else the `text` form.
    private static func date(_ info: OldStylePlist, millis: String, text textKey: String) throws(DecodeError)
        -> Timestamp?
    {
        if let raw = try text(info, millis) {
            if let ms = Int64(raw), let timestamp = Timestamp(millis: ms, hasMilliseconds: ms % 1000 != 0) {
                return timestamp
            }
            if let timestamp = Timestamp.parse(raw) { return timestamp }
            throw DecodeError(
                "bad-date", "'\(millis)' = '\(raw.prefix(40))' is not a date", at: info[millis]?.offset ?? 0)
        }
        guard let raw = try text(info, textKey) else { return nil }
        guard let timestamp = Timestamp.parse(raw) else {
            throw DecodeError(
                "bad-date", "'\(textKey)' = '\(raw.prefix(40))' is not a date", at: info[textKey]?.offset ?? 0)
        }
        return timestamp
    }
}
