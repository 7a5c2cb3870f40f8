import IAPBasics
import JSONText

// The shapes a Google Play purchase arrives in [docs/receipts.md; formats.md §5]:
//   {"data": "<originalJson>", "signature": "<base64>"}           apps' own wrapper
//   base64 of that wrapper                                       to survive a JS bridge
//   {"Store": "GooglePlay", "TransactionID": …,                   Unity IAP; Payload is a JSON
//    "Payload": "{\"json\": \"<originalJson>\", \"signature\": …}"}   string (or, tolerated, an object)
//   <originalJson> alone                                         unsigned
//   {"data": {<originalJson as an object>}, "signature": …}     a server that parsed the
//     (Unity: "json": {…})                                       client's JSON and stored it so
// originalJson is kept as the exact bytes that were signed: the decoded string's UTF-8,
// the whole text when it comes alone, or — when `data` (Unity's `json`) is an object — the
// object's bytes exactly as they stand in the payload. It is never re-serialised: an object
// embedded verbatim still verifies, one whose server wrote it anew does not (and says so).

/// Decodes a Google Play purchase, in any of its wrappers, into a `Receipt`.
public enum GooglePurchaseDecoder {
    /// Cheap shape test for the content sniffer.
    public static func looksLike(_ obj: JSONObject) -> Bool {
        if let store = obj["Store"] { return store.string == "GooglePlay" }
        if let data = obj["data"] {
            if let inner = data.object, isPurchaseData(inner) { return true }
            if obj["signature"] != nil, data.string != nil || data.object != nil { return true }
        }
        return isPurchaseData(obj)
    }

    /// INAPP_PURCHASE_DATA: a package name and a token or order id.
    private static func isPurchaseData(_ obj: JSONObject) -> Bool {
        obj["packageName"] != nil && (obj["purchaseToken"] != nil || obj["token"] != nil || obj["orderId"] != nil)
    }

    /// `bytes`: the JSON text `json` was parsed from (the decoded bytes when it came as
    /// base64); a bare purchase keeps them as its originalJson.
    public static func decode(json: JSONObject, bytes: [UInt8], limits: Limits = .standard) throws(DecodeError)
        -> Receipt
    {
        let top = StoreJSONFields<String>(json, origin: .top(bytes))
        if top.contains("Store") {
            return try unity(top, limits: limits)
        }
        if top.contains("data") {
            return try signedPair(top, dataKey: "data", limits: limits)
        }
        guard looksLike(json) else {
            let reason = "neither a Google Play purchase nor a wrapper of one"
            throw DecodeError("not-a-google-purchase", reason, at: top.origin.offset(of: []))
        }
        return try GooglePurchaseData.receipt(top, originalJSON: bytes, signature: nil)
    }

    /// The wrapper or purchase as JSON text, or that text base64-encoded (then offsets
    /// count in the decoded bytes).
    public static func decode(_ text: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        let firstByte = text.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        let bytes =
            firstByte == 0x7B ? text : try Base64.decode(text, alphabet: .standard, maxBytes: limits.maxPayloadBytes)
        let top = try StoreJSONFields<String>.parseObject(
            bytes, origin: .top(bytes), limits: limits, what: "the Google purchase")
        return try decode(json: top, bytes: bytes, limits: limits)
    }

    /// Unity IAP: `Payload` holds `json` and `signature`, as a JSON string or an object.
    private static func unity(_ top: StoreJSONFields<String>, limits: Limits) throws(DecodeError) -> Receipt {
        let store = try top.text("Store")
        guard store == "GooglePlay" else {
            let reason = "a Unity receipt of store \(store.map { "\"\($0)\"" } ?? "null"), not GooglePlay"
            throw top.fail("not-a-google-purchase", reason, at: "Store")
        }
        guard let payload = try top.value("Payload") else {
            throw top.fail("bad-google-purchase", "a Unity receipt needs a Payload", at: "Payload")
        }
        switch payload {
        case .object:
            guard let inner = try top.object("Payload") else { throw missing("Payload", top) }
            return try signedPair(inner, dataKey: "json", limits: limits)
        case .string(let text):
            let bytes = Array(text.utf8)
            let origin = top.origin.inString(at: [.key("Payload")], json: bytes)
            let inner = try StoreJSONFields<String>.parse(
                bytes, origin: origin, limits: limits, what: "the Unity Payload")
            return try signedPair(inner, dataKey: "json", limits: limits)
        default:
            throw top.fail("bad-field-type", "expected the Payload JSON, found \(payload.kindName)", at: "Payload")
        }
    }

    /// `{"<dataKey>": "<originalJson>", "signature": "<base64>"}`, or the same with
    /// originalJson as an object; no signature: unsigned.
    private static func signedPair(
        _ wrapper: StoreJSONFields<String>, dataKey: String,
        limits: Limits
    ) throws(DecodeError) -> Receipt {
        guard let data = try wrapper.value(dataKey) else { throw missing(dataKey, wrapper) }
        let path = wrapper.path + [.key(dataKey)]
        switch data {
        case .string(let text):
            let originalJSON = Array(text.utf8)
            let origin = wrapper.origin.inString(at: path, json: originalJSON)
            let purchase = try StoreJSONFields<String>.parse(
                originalJSON, origin: origin, limits: limits, what: "originalJson")
            let signature = try wrapper.base64("signature", limits: limits)
            return try GooglePurchaseData.receipt(purchase, originalJSON: originalJSON, signature: signature)
        case .object(let object):
            // The object's bytes as they stand; only when they cannot be found (a key spelt
            // with escapes) is it written anew, which the signature check then reports.
            let source = wrapper.origin.json
            let originalJSON =
                source.flatMap { text in JSONLocator.range(of: path, in: text).map { Array(text[$0]) } }
                ?? Array(data.jsonText.utf8)
            let purchase = StoreJSONFields<String>(object, path: path, origin: wrapper.origin)
            let signature = try wrapper.base64("signature", limits: limits)
            return try GooglePurchaseData.receipt(
                purchase, originalJSON: originalJSON, signature: signature,
                storedAsObjectIn: dataKey)
        default:
            let reason = "expected originalJson as text (the signed bytes) or an object, found \(data.kindName)"
            throw wrapper.fail("bad-field-type", reason, at: dataKey)
        }
    }

    private static func missing(_ key: String, _ f: StoreJSONFields<String>) -> DecodeError {
        f.fail("bad-google-purchase", "the purchase data is missing", at: key)
    }
}
