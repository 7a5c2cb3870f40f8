import DumpFormats
import IAPBasics
import ReceiptFormats
import Screening

/// Turns an order row into the order the rules see: its platform (the row's, else its
/// receipt's), the product it expected (the row's, else the catalog's), the price and
/// environment it is screened at.
struct OrderResolver: Sendable {
    let catalog: Catalog
    /// `--environment production`: orders without their own environment are production.
    let defaultProduction: Bool

    /// Always an order: a product that cannot be chosen is said in `productUnknown`. Only
    /// a decoded receipt is compared with the product, and such an order's product-free
    /// findings (a forged or foreign receipt, a replay of the transaction it names) matter
    /// more than the data-quality row it also gets.
    func resolve(_ row: OrderRow, index: Int, receiptPlatform: Platform?) -> ScreenOrder {
        let platform = row.platform.flatMap { Platform(rawValue: $0.rawValue) } ?? receiptPlatform
        var entry: Catalog.Entry?
        if let item = row.itemID {
            entry = catalog.item(item, platform: platform)
        }
        if let product = row.productID, let p = platform, entry == nil || entry?.productID != product {
            entry = catalog.product(product, platform: p) ?? entry
        }
        // An item sold only on the other store, bought with this store's receipt: the
        // product it should have been is the other store's, which no receipt here holds
        // (item-id-mismatch), not a row the catalog cannot place.
        if entry == nil, row.productID == nil, platform != nil, let item = row.itemID {
            entry = catalog.entries(ofItem: item).first
        }
        let expected = row.productID ?? entry?.productID
        let production = row.environment.map { $0 == .production } ?? defaultProduction
        return ScreenOrder(
            index: index, orderID: row.orderID, userID: row.userID, createdAt: row.createdAt, platform: platform,
            itemID: row.itemID, expectedProductID: expected, catalogType: entry?.type, transactionID: row.transactionID,
            amount: row.amount ?? entry.flatMap { $0.price.isEmpty ? nil : $0.price },
            currency: row.currency ?? entry.flatMap { $0.currency.isEmpty ? nil : $0.currency },
            production: production, location: row.location,
            productUnknown: expected == nil ? unresolvedReason(row) : nil)
    }

    /// Why no product could be chosen for the row.
    private func unresolvedReason(_ row: OrderRow) -> String {
        guard let item = row.itemID else { return "the row has neither item_id nor product_id" }
        return catalog.entries(ofItem: item).isEmpty
            ? "item \(item) is not in the catalog and the row has no product_id"
            : "item \(item) has products on several platforms, and neither the order nor its receipt says which"
    }
}
