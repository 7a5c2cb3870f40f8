import IAPBasics
import JSONText

/// Writes Google Play purchases (formats.md §5): an originalJson text in Play Billing's key
/// order, the identity's signature over its exact bytes (SHA1withRSA for a real Play key),
/// and the wrappers apps store it in.
public enum GooglePurchaseBuilder {
    /// How the purchase travels from the app to our server.
    public enum Wrapper: Sendable, CaseIterable {
        /// `{"data":"<originalJson>","signature":"<base64>"}`
        case dataAndSignature
        /// The same, base64-encoded (to survive a JS bridge).
        case base64DataAndSignature
        /// `{"Store":"GooglePlay","TransactionID":…,"Payload":"{\"json\":…,\"signature\":…}"}`
        case unity
        /// originalJson alone, unsigned.
        case unsigned
    }

    /// The fields of an originalJson.
    public struct PurchaseData: Sendable {
        /// nil: a test purchase (Play leaves `orderId` out).
        public var orderID: String?
        public var packageName: String
        public var productID: String
        public var purchaseTime: Timestamp
        /// 0 purchased, 1 cancelled, 4 pending.
        public var purchaseState: Int64 = 0
        public var purchaseToken: String
        public var obfuscatedAccountID: String?
        public var quantity: Int64 = 1
        public var acknowledged: Bool = false
        /// Subscriptions only.
        public var autoRenewing: Bool?

        public init(
            orderID: String?, packageName: String, productID: String, purchaseTime: Timestamp,
            purchaseToken: String, obfuscatedAccountID: String? = nil
        ) {
            self.orderID = orderID
            self.packageName = packageName
            self.productID = productID
            self.purchaseTime = purchaseTime
            self.purchaseToken = purchaseToken
            self.obfuscatedAccountID = obfuscatedAccountID
        }

        /// Compact JSON, keys in the order Play Billing writes them.
        public var originalJSON: String {
            var o = JSONObject()
            if let orderID { o.members.append(("orderId", .string(orderID))) }
            o.members.append(contentsOf: [
                ("packageName", .string(packageName)),
                ("productId", .string(productID)),
                ("purchaseTime", .integer(purchaseTime.millis)),
                ("purchaseState", .integer(purchaseState)),
                ("purchaseToken", .string(purchaseToken)),
            ])
            if let obfuscatedAccountID { o.members.append(("obfuscatedAccountId", .string(obfuscatedAccountID))) }
            o.members.append(("quantity", .integer(quantity)))
            if let autoRenewing { o.members.append(("autoRenewing", .bool(autoRenewing))) }
            o.members.append(("acknowledged", .bool(acknowledged)))
            return JSONValue.object(o).jsonText
        }
    }

    /// The identity's signature over the exact UTF-8 bytes of `originalJSON`.
    public static func signature(of originalJSON: String, with identity: SigningIdentity) throws -> [UInt8] {
        try identity.sign(Array(originalJSON.utf8))
    }

    /// `originalJSON` signed and wrapped; `unityTransactionID` is Unity's `TransactionID`.
    public static func payload(
        originalJSON: String, signature: [UInt8], wrapper: Wrapper,
        unityTransactionID: String? = nil
    ) -> String {
        let signatureText = JSONValue.string(Base64.encode(signature))
        switch wrapper {
        case .dataAndSignature:
            return JSONValue.object(JSONObject([("data", .string(originalJSON)), ("signature", signatureText)]))
                .jsonText
        case .base64DataAndSignature:
            let json = payload(originalJSON: originalJSON, signature: signature, wrapper: .dataAndSignature)
            return Base64.encode(Array(json.utf8))
        case .unity:
            let inner = JSONObject([
                ("json", .string(originalJSON)), ("signature", signatureText), ("skuDetails", .string("{}")),
            ])
            return JSONValue.object(
                JSONObject([
                    ("Store", .string("GooglePlay")),
                    ("TransactionID", .string(orNull: unityTransactionID)),
                    ("Payload", .string(JSONValue.object(inner).jsonText)),
                ])
            ).jsonText
        case .unsigned:
            return originalJSON
        }
    }

    /// How a server that parsed the client's JSON wrote originalJson back as an object.
    public enum ObjectForm: Sendable, CaseIterable {
        /// The originalJson text embedded as it was, byte for byte: it still verifies.
        case verbatim
        /// Parsed and written anew, `", "` and `": "` between members as Python's `json.dumps`
        /// writes them: the signed bytes are gone.
        case reserialized
    }

    /// `originalJSON` signed and wrapped with `data` (Unity: the Payload's `json`) holding it
    /// as a JSON object in `form`; `.unsigned` has no wrapper to hold it.
    public static func payloadWithObject(
        originalJSON: String, signature: [UInt8], wrapper: Wrapper,
        form: ObjectForm
    ) throws -> String {
        let object: String
        switch form {
        case .verbatim:
            object = originalJSON
        case .reserialized:
            guard case .object(let parsed) = try JSONParser.parse(Array(originalJSON.utf8)) else {
                throw ReceiptBuildError(reason: "originalJson is not a JSON object")
            }
            object =
                "{"
                + parsed.members.map { JSONValue.string($0.key).jsonText + ": " + $0.value.jsonText }
                .joined(separator: ", ") + "}"
        }
        let signatureText = JSONValue.string(Base64.encode(signature)).jsonText
        switch wrapper {
        case .dataAndSignature:
            return #"{"data":"# + object + #","signature":"# + signatureText + "}"
        case .base64DataAndSignature:
            let json = try payloadWithObject(
                originalJSON: originalJSON, signature: signature, wrapper: .dataAndSignature,
                form: form)
            return Base64.encode(Array(json.utf8))
        case .unity:
            let inner = #"{"json":"# + object + #","signature":"# + signatureText + "}"
            return JSONValue.object(
                JSONObject([
                    ("Store", .string("GooglePlay")), ("TransactionID", .null), ("Payload", .string(inner)),
                ])
            ).jsonText
        case .unsigned:
            throw ReceiptBuildError(reason: "an unsigned purchase has no wrapper to hold originalJson as an object")
        }
    }

    /// The purchase signed by `identity` and wrapped.
    public static func payload(_ data: PurchaseData, with identity: SigningIdentity, wrapper: Wrapper) throws -> String
    {
        let originalJSON = data.originalJSON
        let signed = wrapper == .unsigned ? [] : try signature(of: originalJSON, with: identity)
        return payload(
            originalJSON: originalJSON, signature: signed, wrapper: wrapper,
            unityTransactionID: data.orderID ?? data.purchaseToken)
    }
}
