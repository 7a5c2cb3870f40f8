import IAPBasics
import ReceiptFormats

/// A credited order as the rules see it: the dump row, resolved against the catalog.
public struct ScreenOrder: Sendable {
    /// Position in the input (the findings come out in this order).
    public var index: Int
    public var orderID: String
    public var userID: String
    public var createdAt: Timestamp
    public var platform: Platform?
    public var itemID: String?
    /// The store product the order should have bought (the order's, else the catalog's);
    /// nil when neither says (then `productUnknown` says why).
    public var expectedProductID: String?
    /// Why no product could be chosen. An order with a decoded receipt then gets a
    /// `malformed-record` finding, and the rules that need no product still run on it.
    public var productUnknown: String?
    /// From the catalog, when the product is in it.
    public var catalogType: ProductType?
    public var transactionID: String?
    /// Decimal text in major units.
    public var amount: String?
    public var currency: String?
    /// Screened as a production order (its `environment`, else `--environment`).
    public var production: Bool
    public var location: SourceLocation

    public init(
        index: Int, orderID: String, userID: String, createdAt: Timestamp, platform: Platform?, itemID: String?,
        expectedProductID: String?, catalogType: ProductType?, transactionID: String?, amount: String?,
        currency: String?, production: Bool, location: SourceLocation, productUnknown: String? = nil
    ) {
        self.index = index
        self.orderID = orderID
        self.userID = userID
        self.createdAt = createdAt
        self.platform = platform
        self.itemID = itemID
        self.expectedProductID = expectedProductID
        self.catalogType = catalogType
        self.transactionID = transactionID
        self.amount = amount
        self.currency = currency
        self.production = production
        self.location = location
        self.productUnknown = productUnknown
    }

    /// Claims are made in this order, whatever order the rows or the workers come in.
    public static func claimOrder(_ a: ScreenOrder, _ b: ScreenOrder) -> Bool {
        a.createdAt != b.createdAt ? a.createdAt < b.createdAt : a.orderID < b.orderID
    }
}
