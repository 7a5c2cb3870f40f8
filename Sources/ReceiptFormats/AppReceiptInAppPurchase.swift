import IAPBasics
import JSONText

/// One in-app purchase (a type-17 value) into a `Purchase`.
///
/// formats.md §1.4 (TPInAppReceipt, RevenueCat; Apple's archived receipt field reference):
/// InAppReceipt ::= SET OF ReceiptAttribute
///   1701 quantity INTEGER              1702 product id UTF8String
///   1703 transaction id UTF8String     1704 purchase date IA5String
///   1705 original transaction id       1706 original purchase date IA5String
///   1707 product type INTEGER          1708 subscription expiry IA5String (empty if none)
///   1711 web order line item id INTEGER
///   1712 cancellation date IA5String   1713 is trial period INTEGER 0/1
///   1719 is in intro offer period      1721 promotional offer id UTF8String
///   1709, 1710, 1714–1718, 1722 and any other: undocumented, kept raw unless an empty string
enum AppReceiptInAppPurchase {
    /// Into `purchase`, a new one.
    static func read(_ set: inout ASN1Reader, into purchase: inout Purchase) throws(DecodeError) {
        // Real entries carry four to six attributes we keep as extras: grow the array once.
        purchase.extras.reserveCapacity(8)
        var seen: UInt32 = 0
        try AppReceiptAttribute.forEach(in: &set) { (attribute) throws(DecodeError) in
            let type = attribute.type
            // Each typed field appears once; a second copy would let two readers disagree.
            switch type {
            case 1701...1708, 1711, 1712:
                let bit: UInt32 = 1 << UInt32(type - 1701)
                guard seen & bit == 0 else {
                    throw DecodeError(
                        "duplicate-attribute", "the in-app attribute appears twice", at: attribute.value.start)
                }
                seen |= bit
            default: break
            }
            switch type {
            case 1701: purchase.quantity = try attribute.int64()
            case 1702: purchase.productID = try attribute.string()
            case 1703: purchase.transactionID = try attribute.string()
            case 1704: purchase.purchaseDate = try attribute.date()
            case 1705: purchase.originalTransactionID = try attribute.string()
            case 1706: purchase.originalPurchaseDate = try attribute.date()
            case 1707: purchase.productType = ProductType(appleCode: try attribute.int64())
            case 1708: purchase.expiresDate = try attribute.date()
            case 1711: purchase.webOrderLineItemID = String(try attribute.int64())
            case 1712: purchase.cancellationDate = try attribute.date()
            default:
                let extra: (key: String, value: JSONValue)?
                switch type {
                case 1713:
                    extra = try attribute.extra("is_trial_period") { (a) throws(DecodeError) in try a.extraFlag() }
                case 1719:
                    extra = try attribute.extra("is_in_intro_offer_period") { (a) throws(DecodeError) in
                        try a.extraFlag()
                    }
                case 1721:
                    extra = try attribute.extra("promotional_offer_id") { (a) throws(DecodeError) in try a.extraString()
                    }
                default: extra = try attribute.unknown()
                }
                if let extra { purchase.extras.append(extra) }
            }
        }
    }
}
