import IAPBasics
import JSONText

/// The receipt payload (the signed content) into a `Receipt`'s fields.
///
/// formats.md §1.2–1.3 (TPInAppReceipt `AppReceiptField.swift`, RevenueCat, Apple's archived
/// receipt field reference):
/// Payload ::= SET OF ReceiptAttribute
///   0 environment UTF8String     1 app item id INTEGER       2 bundle id UTF8String
///   3 app version UTF8String     4 opaque value (bytes)      5 SHA-1 hash (bytes)
///   8 transaction date           9 fulfillment tool version  10 age rating IA5String
///   11 developer id INTEGER      12 creation date IA5String  15 download id INTEGER
///   16 version external id       17 in-app purchase (SET, repeated)
///   18 original purchase date    19 original app version     21 expiration date
///   6, 7, 13, 14, 20, 22, 23, 25 and any other: undocumented, kept raw unless an empty string
enum AppReceiptPayload {
    static func read(_ reader: inout ASN1Reader, into receipt: inout Receipt, limits: Limits) throws(DecodeError) {
        guard try reader.peekTag() == .set else {
            throw DecodeError(
                "not-app-receipt", "the signed content is not a set of receipt attributes",
                at: reader.position)
        }
        var seen: UInt32 = 0
        try reader.readConstructed(.set) { (set) throws(DecodeError) in
            try AppReceiptAttribute.forEach(in: &set) { (attribute) throws(DecodeError) in
                let type = attribute.type
                switch type {
                case 0, 1, 2, 3, 12, 19:
                    // Each typed field appears once; a second copy would let two readers disagree.
                    let bit: UInt32 = 1 << UInt32(type)
                    guard seen & bit == 0 else {
                        throw DecodeError(
                            "duplicate-attribute", "the receipt attribute appears twice",
                            at: attribute.value.start)
                    }
                    seen |= bit
                default: break
                }
                switch type {
                case 0: receipt.environment = try attribute.string()
                case 1: receipt.appItemID = try attribute.int64()
                case 2: receipt.appID = try attribute.string()
                case 3: receipt.appVersion = try attribute.string()
                case 12: receipt.creationDate = try attribute.date()
                case 19: receipt.originalAppVersion = try attribute.string()
                case 17:
                    guard receipt.purchases.count < limits.maxPurchases else {
                        throw DecodeError(
                            "too-many-purchases", "more than \(limits.maxPurchases) in-app purchases",
                            at: attribute.value.start)
                    }
                    // Read in its place in the list: a Purchase passed back up through the readers
                    // would be copied at each level. A failure fails the whole receipt.
                    receipt.purchases.append(Purchase())
                    let last = receipt.purchases.count - 1
                    try attribute.readSet { (inApp) throws(DecodeError) in
                        try AppReceiptInAppPurchase.read(&inApp, into: &receipt.purchases[last])
                    }
                default:
                    if let extra = try extra(attribute) { receipt.extras.append(extra) }
                }
            }
        }
    }

    private static func extra(_ attribute: AppReceiptAttribute) throws(DecodeError) -> (key: String, value: JSONValue)?
    {
        switch attribute.type {
        case 4: return ("opaque_value", try attribute.hex())
        case 5: return ("sha1_hash", try attribute.hex())
        case 8: return try attribute.extra("transaction_date") { (a) throws(DecodeError) in try a.extraDate() }
        case 9:
            return try attribute.extra("fulfillment_tool_version") { (a) throws(DecodeError) in try a.extraNumber() }
        case 10: return try attribute.extra("age_rating") { (a) throws(DecodeError) in try a.extraString() }
        case 11: return try attribute.extra("developer_id") { (a) throws(DecodeError) in try a.extraNumber() }
        case 15: return try attribute.extra("download_id") { (a) throws(DecodeError) in try a.extraNumber() }
        case 16:
            return try attribute.extra("version_external_identifier") { (a) throws(DecodeError) in try a.extraNumber() }
        case 18: return try attribute.extra("original_purchase_date") { (a) throws(DecodeError) in try a.extraDate() }
        case 21: return try attribute.extra("expiration_date") { (a) throws(DecodeError) in try a.extraDate() }
        default: return try attribute.unknown()
        }
    }
}
