import IAPBasics
import ReceiptBuilder
import ReceiptFormats

/// One order of the demo world as it will be written, with what screening must say of it.
struct PlannedOrder {
    enum Store {
        /// App Store app receipt, in the CSV orders dump with its receipt in the receipts dump.
        case appReceipt
        /// StoreKit 2 JWS, in the XML orders dump with the receipt inline.
        case jws
        /// Google Play, in the JSON Lines orders dump with the receipt inline.
        case google
    }

    enum Proof {
        case none
        case app(AppReceiptBuilder.Spec)
        case jws(JWSBuilder.Transaction)
        case google(GooglePurchaseBuilder.PurchaseData, GooglePurchaseBuilder.Wrapper)
        case garbage(String)
        /// A stored verifyReceipt response around the app receipt; `forged` rewrites the
        /// expiry of its subscription in the JSON only.
        case verifyReceipt(AppReceiptBuilder.Spec, forged: Bool)
        /// The app receipt with one byte of its signed content changed.
        case tampered(AppReceiptBuilder.Spec)
        /// Signed by the local StoreKit Testing certificate, as Xcode does.
        case xcode(AppReceiptBuilder.Spec)
        /// The same payload as the planned order at this index of the batch (a replay).
        case sameAs(Int)
    }

    var orderID: String
    var userID: String
    var createdAt: Timestamp
    var store: Store
    var itemID: String
    var transactionID: String?
    var status = "credited"
    var environment: String?
    /// The amount the dump records, when not the catalog price (`0.00` for a restore).
    var amount: String?
    var proof: Proof
    /// The receipts-dump row arrives this long after the order (a retried post).
    var receiptDelaySeconds: Int64 = 30
    /// Written twice, as overlapping exports do.
    var duplicated = false
    /// The row names its platform. Servers that learn it from the receipt leave it out, so an
    /// order without a receipt says neither platform nor store product (only its item).
    var statesPlatform = true
    /// `created_at` written unreadable: a malformed record.
    var brokenCreatedAt = false
    /// The columns refund requests are answered from (docs/consumption.md): how much of it the
    /// customer used, and whether they consent to share it.
    var consumed: String?
    var consent: String?
    /// Rules that must flag it (not exempted), rules that must be reviewer-exempted.
    var expected: [String] = []
    var exempted: [String] = []
    var caseName: String
}

/// The catalog the world sells, and the app it belongs to (what the Rules directory says).
enum SampleCatalog {
    static let bundleID = "com.example.game"
    static let appItemID: Int64 = 1_234_567_890

    struct Item {
        var id: String
        var apple: String
        var google: String
        var type: ProductType
        var price: String
    }

    static let items = [
        Item(id: "gems_100", apple: "com.example.game.gems100", google: "gems_100", type: .consumable, price: "0.99"),
        Item(id: "gems_550", apple: "com.example.game.gems550", google: "gems_550", type: .consumable, price: "4.99"),
        Item(
            id: "gems_1200", apple: "com.example.game.gems1200", google: "gems_1200", type: .consumable, price: "9.99"),
        Item(
            id: "vip_month", apple: "com.example.game.vip.monthly", google: "vip_monthly", type: .autoRenewable,
            price: "9.99"),
        Item(id: "no_ads", apple: "com.example.game.noads", google: "no_ads", type: .nonConsumable, price: "2.99"),
    ]

    static var catalogCSV: String {
        // The smallest pack is also given away as a sample: a refund request's answer says so.
        var out = "item_id,platform,product_id,type,price,currency,sample_content\n"
        for i in items {
            let sample = i.id == "gems_100" ? "yes" : "no"
            out += "\(i.id),ios,\(i.apple),\(i.type.name),\(i.price),USD,\(sample)\n"
            out += "\(i.id),android,\(i.google),\(i.type.name),\(i.price),USD,\(sample)\n"
        }
        return out
    }

    static let reviewers = ["appreview-01", "appreview-02"]
}
