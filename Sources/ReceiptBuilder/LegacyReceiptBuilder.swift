import IAPBasics

/// Writes iOS 6 transaction receipts (formats.md §2) as a client sends them: base64 of the
/// outer old-style plist, whose `purchase-info` is base64 of the inner one and whose
/// `signature` is `0x02 ‖ RSA signature ‖ certificate length ‖ leaf certificate`.
public enum LegacyReceiptBuilder {
    public struct Spec: Sendable {
        /// `Sandbox`; nil leaves the key out, as production receipts do.
        public var environment: String? = "Sandbox"
        public var bundleID: String
        public var bundleVersion: String
        public var productID: String
        /// The product's Apple item id.
        public var itemID: String
        public var transactionID: String
        public var originalTransactionID: String
        public var quantity: Int64 = 1
        public var purchaseDate: Timestamp
        public var originalPurchaseDate: Timestamp
        public var expiresDate: Timestamp?
        public var webOrderLineItemID: String?
        public var uniqueIdentifier: String? = "0000b0090000000000000000000000000000000f"
        public var uniqueVendorIdentifier: String?

        public init(
            bundleID: String, bundleVersion: String = "1.0", productID: String, itemID: String,
            transactionID: String, originalTransactionID: String? = nil, purchaseDate: Timestamp,
            originalPurchaseDate: Timestamp? = nil
        ) {
            self.bundleID = bundleID
            self.bundleVersion = bundleVersion
            self.productID = productID
            self.itemID = itemID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID ?? transactionID
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        }
    }

    /// The payload text a client posts. `identity`'s first certificate is the leaf; it
    /// signs `0x02 ‖ purchase-info bytes`.
    public static func build(_ spec: Spec, signedBy identity: SigningIdentity) throws -> String {
        guard let leaf = identity.certificates.first else {
            throw ReceiptBuildError(reason: "an iOS 6 receipt needs the signer's certificate")
        }
        let purchaseInfo = Array(plist(purchaseInfoEntries(spec)).utf8)
        let signature = try identity.sign([0x02] + purchaseInfo)
        guard [128, 256, 384, 512].contains(signature.count), leaf.count <= Int(UInt32.max) else {
            throw ReceiptBuildError(
                reason: "a \(signature.count)-byte signature is not an RSA signature the format carries")
        }
        let length = UInt32(leaf.count)
        let blob =
            [0x02] + signature + [
                UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
                UInt8(length & 0xFF),
            ] + leaf
        return outer(spec, purchaseInfo: purchaseInfo, signatureBlob: blob)
    }

    /// The same receipt without its `signature` key, as a server that kept only what it
    /// read might store it.
    public static func withoutSignature(_ spec: Spec) -> String {
        outer(spec, purchaseInfo: Array(plist(purchaseInfoEntries(spec)).utf8), signatureBlob: nil)
    }

    private static func outer(_ spec: Spec, purchaseInfo: [UInt8], signatureBlob: [UInt8]?) -> String {
        var outer: [(String, String)] = []
        if let signatureBlob { outer.append(("signature", Base64.encode(signatureBlob))) }
        outer.append(("purchase-info", Base64.encode(purchaseInfo)))
        if let environment = spec.environment { outer.append(("environment", environment)) }
        outer.append(("pod", "100"))
        outer.append(("signing-status", "0"))
        return Base64.encode(Array(plist(outer).utf8))
    }

    private static func purchaseInfoEntries(_ spec: Spec) -> [(String, String)] {
        var entries: [(String, String)] = [
            ("original-purchase-date-ms", String(spec.originalPurchaseDate.millis)),
            ("original-transaction-id", spec.originalTransactionID),
            ("bvrs", spec.bundleVersion),
            ("transaction-id", spec.transactionID),
            ("quantity", String(spec.quantity)),
            ("original-purchase-date", dateText(spec.originalPurchaseDate)),
            ("product-id", spec.productID),
            ("item-id", spec.itemID),
            ("bid", spec.bundleID),
            ("purchase-date-ms", String(spec.purchaseDate.millis)),
            ("purchase-date", dateText(spec.purchaseDate)),
        ]
        if let id = spec.uniqueIdentifier { entries.append(("unique-identifier", id)) }
        if let id = spec.uniqueVendorIdentifier { entries.append(("unique-vendor-identifier", id)) }
        if let expires = spec.expiresDate {
            entries.append(("expires-date", String(expires.millis)))
            entries.append(("expires-date-formatted", dateText(expires)))
        }
        if let id = spec.webOrderLineItemID { entries.append(("web-order-line-item-id", id)) }
        return entries
    }

    /// `2012-04-30 15:05:55 Etc/GMT`
    private static func dateText(_ date: Timestamp) -> String {
        let seconds =
            Timestamp(millis: date.millis - ((date.millis % 1000) + 1000) % 1000, hasMilliseconds: false) ?? date
        let iso = seconds.iso8601
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(8) + " Etc/GMT"
    }

    /// Old-style plist text as Apple writes it: `{` tab-indented `"key" = "value";` lines `}`.
    private static func plist(_ entries: [(String, String)]) -> String {
        var text = "{\n"
        for (key, value) in entries {
            text += "\t\(quoted(key)) = \(quoted(value));\n"
        }
        return text + "}"
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
