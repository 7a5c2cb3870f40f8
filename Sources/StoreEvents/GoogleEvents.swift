import DumpFormats
import IAPBasics
import JSONText

/// Google Play events, unsigned (our server fetched or received them from Google): voided
/// purchases (`voidedpurchases.list`) and Real-time developer notifications, as the Pub/Sub
/// push body or the decoded `DeveloperNotification`.
enum GoogleEvents {
    static let reasons = [
        "other", "remorse", "not-received", "defective", "accidental-purchase", "fraud",
        "friendly-fraud", "chargeback", "unacknowledged",
    ]
    static let sources = ["user", "developer", "google"]

    /// One VoidedPurchase object.
    static func voided(_ o: JSONObject, at location: SourceLocation) throws(UnreadableRecord) -> StoreEvent {
        let orderID = try text(o, "orderId", location)
        let token = try text(o, "purchaseToken", location)
        guard orderID != nil || token != nil else {
            throw UnreadableRecord(
                location: location, reason: "a voided purchase with neither orderId nor purchaseToken")
        }
        guard let voided = try millis(o, "voidedTimeMillis", location) else {
            throw UnreadableRecord(location: location, reason: "a voided purchase without voidedTimeMillis")
        }
        let who = orderID.map { "o:" + $0 } ?? "t:" + (token ?? "")
        var e = StoreEvent(
            store: .google, type: "voided", meaning: .refund,
            identity: "google:v:\(who):\(voided.millis)", location: location)
        e.transactionID = orderID
        e.purchaseToken = token
        e.at = voided
        e.reason = try code(o, "voidedReason", reasons, location)
        e.source = try code(o, "voidedSource", sources, location)
        return e
    }

    /// A Pub/Sub push body: `message.data` is the base64 of a DeveloperNotification.
    static func push(_ message: JSONObject, at location: SourceLocation, limits: Limits) throws(UnreadableRecord)
        -> StoreEvent
    {
        guard let data = message["data"]?.string else {
            throw UnreadableRecord(location: location, reason: "a Pub/Sub message without a data string")
        }
        let bytes: [UInt8]
        do {
            bytes = try Base64.decode(data, maxBytes: limits.maxPayloadBytes)
        } catch {
            throw UnreadableRecord(location: location, reason: "message.data is not base64: \(error.reason)")
        }
        let decoded: JSONValue
        do {
            decoded = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw UnreadableRecord(location: location, reason: "message.data decodes to no JSON: \(error.reason)")
        }
        guard let notification = decoded.object else {
            throw UnreadableRecord(location: location, reason: "message.data decodes to JSON that is not an object")
        }
        var messageID = try text(message, "messageId", location)
        if messageID == nil { messageID = try text(message, "message_id", location) }
        return try developerNotification(notification, messageID: messageID, at: location)
    }

    /// A DeveloperNotification: `packageName`, `eventTimeMillis` and one notification.
    static func developerNotification(
        _ o: JSONObject, messageID: String?,
        at location: SourceLocation
    ) throws(UnreadableRecord) -> StoreEvent {
        guard let package = try text(o, "packageName", location) else {
            throw UnreadableRecord(location: location, reason: "a developer notification without packageName")
        }
        let at = try millis(o, "eventTimeMillis", location)
        let type: String
        let meaning: StoreEvent.Meaning
        let inner: JSONObject
        if let v = try object(o, "voidedPurchaseNotification", location) {
            (type, meaning, inner) = ("rtdn-voided", .refund, v)
        } else if let s = try object(o, "subscriptionNotification", location) {
            let revoked = s["notificationType"]?.int64 == 12
            (type, meaning, inner) = (revoked ? "rtdn-revoked" : "rtdn-subscription", revoked ? .refund : .other, s)
        } else if let p = try object(o, "oneTimeProductNotification", location) {
            (type, meaning, inner) = ("rtdn-one-time-product", .other, p)
        } else if let t = try object(o, "testNotification", location) {
            (type, meaning, inner) = ("rtdn-test", .other, t)
        } else {
            throw UnreadableRecord(
                location: location,
                reason: "a developer notification of no known kind (keys: \(o.keys.prefix(8).joined(separator: ", ")))")
        }
        // Without a message id, the same content is the same notification.
        let identity = messageID.map { "google:m:" + $0 } ?? "google:c:" + JSONValue.object(o).jsonText
        var e = StoreEvent(store: .google, type: type, meaning: meaning, identity: identity, location: location)
        e.appID = package
        e.at = at
        e.purchaseToken = try text(inner, "purchaseToken", location)
        e.transactionID = try text(inner, "orderId", location)
        e.productID = try text(inner, "subscriptionId", location)
        if e.productID == nil { e.productID = try text(inner, "sku", location) }
        if meaning == .refund, e.purchaseToken == nil, e.transactionID == nil {
            throw UnreadableRecord(
                location: location, reason: "a \(type) notification names no purchase (no purchaseToken or orderId)")
        }
        return e
    }

    // MARK: Fields

    private static func text(_ o: JSONObject, _ key: String, _ location: SourceLocation) throws(UnreadableRecord)
        -> String?
    {
        switch o[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s.isEmpty ? nil : s
        case let other?:
            throw UnreadableRecord(location: location, reason: "\(key) is \(ExtendedJSON.kind(of: other)), not text")
        }
    }

    private static func object(_ o: JSONObject, _ key: String, _ location: SourceLocation) throws(UnreadableRecord)
        -> JSONObject?
    {
        switch o[key] {
        case nil, .null?: return nil
        case .object(let x)?: return x
        case let other?:
            throw UnreadableRecord(
                location: location, reason: "\(key) is \(ExtendedJSON.kind(of: other)), not an object")
        }
    }

    /// Epoch milliseconds, written as Google's REST API writes int64 (a string) or as a number.
    private static func millis(_ o: JSONObject, _ key: String, _ location: SourceLocation) throws(UnreadableRecord)
        -> Timestamp?
    {
        guard let value = o[key], !value.isNull else { return nil }
        guard let n = value.int64, let t = Timestamp(millis: n) else {
            throw UnreadableRecord(
                location: location,
                reason:
                    "\(key) is not epoch milliseconds: \(String((value.scalarText ?? ExtendedJSON.kind(of: value)).prefix(40)))"
            )
        }
        return t
    }

    /// A small code and its word (`voidedReason` 5 is `fraud`); an unknown code stays a number.
    private static func code(
        _ o: JSONObject, _ key: String, _ words: [String],
        _ location: SourceLocation
    ) throws(UnreadableRecord) -> String? {
        guard let value = o[key], !value.isNull else { return nil }
        guard let n = value.int64 else {
            throw UnreadableRecord(
                location: location,
                reason:
                    "\(key) is not a number: \(String((value.scalarText ?? ExtendedJSON.kind(of: value)).prefix(40)))")
        }
        return words.indices.contains(Int(clamping: n)) ? words[Int(n)] : String(n)
    }
}
