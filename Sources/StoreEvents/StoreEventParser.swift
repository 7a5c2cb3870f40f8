import DumpFormats
import IAPBasics
import JSONText

/// Recognises store events by their content (the table of docs/store-events.md) in one
/// payload: a line of a log, a dump row's payload column, or a whole document. A page holds
/// many events; an entry of it that cannot be read is a problem of its own (with its index),
/// and the page's other entries still count.
public enum StoreEventParser {
    public struct Parsed: Sendable {
        public var events: [StoreEvent] = []
        public var problems: [UnreadableRecord] = []
    }

    public static func parse(_ bytes: [UInt8], at location: SourceLocation, limits: Limits = .standard) -> Parsed {
        var out = Parsed()
        do throws(UnreadableRecord) {
            try read(bytes, location, limits, &out)
        } catch {
            out.problems.append(error)
        }
        return out
    }

    private static func read(
        _ bytes: [UInt8], _ location: SourceLocation, _ limits: Limits,
        _ out: inout Parsed
    ) throws(UnreadableRecord) {
        guard bytes.count <= limits.maxRecordBytes else {
            throw UnreadableRecord(
                location: location,
                reason: "an event of \(bytes.count) bytes exceeds the cap of \(limits.maxRecordBytes)")
        }
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { throw UnreadableRecord(location: location, reason: "an empty event") }
        let first = bytes[start]
        guard first == 0x7B || first == 0x22 || first == 0x5B else {
            // Not JSON: the notification's JWS alone.
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            guard text.utf8.filter({ $0 == 0x2E }).count == 2 else {
                throw UnreadableRecord(location: location, reason: "neither JSON nor a JWS")
            }
            out.events.append(try AppleEvents.notification(jws: text, at: location, limits: limits))
            return
        }
        let text = start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end])
        func notJSON(_ error: DecodeError) -> UnreadableRecord {
            UnreadableRecord(location: location, reason: "not JSON: \(error.reason) (at byte \(error.offset + start))")
        }
        // Checked as the value would be parsed, none made yet: most lines are webhook bodies,
        // whose JWS is read where it lies.
        var members: [JSONMember] = []
        let kind: JSONKind
        do {
            kind = try JSONParser.scan(text, limits: limits, members: &members)
        } catch {
            throw notJSON(error)
        }
        if kind == .object, let jws = signedPayloadText(members, in: text) {
            let result = text.withUnsafeBytes { bytes in
                Result { () throws(UnreadableRecord) in
                    try AppleEvents.notification(
                        jws: UnsafeRawBufferPointer(rebasing: bytes[jws]), at: location, limits: limits)
                }
            }
            out.events.append(try result.get())
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(text, limits: limits)
        } catch {
            throw notJSON(error)
        }
        try recognise(value, location, limits, &out)
    }

    private static let signedPayloadName = Array("signedPayload".utf8)

    /// Where the text of a webhook body's `signedPayload` stands, as the object's member
    /// would read: the last of that name, a string without escapes. Nil when it is not
    /// there, is anything else, or a name is written with escapes (rare: the body is then
    /// read as a value).
    private static func signedPayloadText(_ members: [JSONMember], in text: [UInt8]) -> Range<Int>? {
        guard members.allSatisfy({ $0.key.isPlain }) else { return nil }
        return text.withUnsafeBytes { bytes in
            for m in members.reversed()
            where bytes[(m.key.start + 1)..<(m.key.end - 1)].elementsEqual(signedPayloadName) {
                guard m.value.kind == .string, m.value.isPlain else { return nil }
                return (m.value.start + 1)..<(m.value.end - 1)
            }
            return nil
        }
    }

    static func recognise(
        _ value: JSONValue, _ location: SourceLocation, _ limits: Limits,
        _ out: inout Parsed
    ) throws(UnreadableRecord) {
        switch value {
        case .string(let jws):
            out.events.append(try AppleEvents.notification(jws: jws, at: location, limits: limits))
        case .object(let o):
            try object(o, location, limits, &out)
        default:
            throw UnreadableRecord(location: location, reason: "JSON \(ExtendedJSON.kind(of: value)) is no store event")
        }
    }

    private static func object(
        _ o: JSONObject, _ location: SourceLocation, _ limits: Limits,
        _ out: inout Parsed
    ) throws(UnreadableRecord) {
        if let payload = o["signedPayload"] {
            guard let jws = payload.string else {
                throw UnreadableRecord(
                    location: location, reason: "signedPayload is \(ExtendedJSON.kind(of: payload)), not a JWS")
            }
            out.events.append(try AppleEvents.notification(jws: jws, at: location, limits: limits))
        } else if let history = o["notificationHistory"] {
            try page(history, "notificationHistory", location, &out) { entry throws(UnreadableRecord) in
                guard let jws = entry.object?["signedPayload"]?.string else {
                    throw UnreadableRecord(location: location, reason: "an entry without a signedPayload JWS")
                }
                return try AppleEvents.notification(jws: jws, at: location, limits: limits)
            }
        } else if let transactions = o["signedTransactions"] {
            try page(transactions, "signedTransactions", location, &out) { entry throws(UnreadableRecord) in
                guard let jws = entry.string else {
                    throw UnreadableRecord(
                        location: location, reason: "an entry that is \(ExtendedJSON.kind(of: entry)), not a JWS")
                }
                return try AppleEvents.refundHistory(jws: jws, at: location, limits: limits)
            }
        } else if let voided = o["voidedPurchases"] {
            try page(voided, "voidedPurchases", location, &out) { entry throws(UnreadableRecord) in
                guard let v = entry.object else {
                    throw UnreadableRecord(
                        location: location, reason: "an entry that is \(ExtendedJSON.kind(of: entry)), not an object")
                }
                return try GoogleEvents.voided(v, at: location)
            }
        } else if o["voidedTimeMillis"] != nil {
            out.events.append(try GoogleEvents.voided(o, at: location))
        } else if let message = o["message"]?.object, message["data"] != nil {
            out.events.append(try GoogleEvents.push(message, at: location, limits: limits))
        } else if o["packageName"] != nil, o["eventTimeMillis"] != nil {
            out.events.append(try GoogleEvents.developerNotification(o, messageID: nil, at: location))
        } else if let payload = payloadColumn(o) {
            // A logged row (JSON Lines) whose column holds the event, as text or as JSON.
            switch payload.value {
            case .string(let text): try read(Array(text.utf8), location, limits, &out)
            case .object: try recognise(payload.value, location, limits, &out)
            default:
                throw UnreadableRecord(
                    location: location,
                    reason: "\(payload.key) is \(ExtendedJSON.kind(of: payload.value)), not an event")
            }
        } else {
            throw UnreadableRecord(
                location: location,
                reason: "a JSON object that is no store event (keys: \(o.keys.prefix(8).joined(separator: ", ")))")
        }
    }

    /// The entries of a page; a bad entry is a problem named by its index.
    private static func page(
        _ value: JSONValue, _ key: String, _ location: SourceLocation, _ out: inout Parsed,
        _ entry: (JSONValue) throws(UnreadableRecord) -> StoreEvent
    ) throws(UnreadableRecord) {
        guard let entries = value.array else {
            throw UnreadableRecord(
                location: location, reason: "\(key) is \(ExtendedJSON.kind(of: value)), not an array")
        }
        for (i, e) in entries.enumerated() {
            do throws(UnreadableRecord) {
                out.events.append(try entry(e))
            } catch {
                out.problems.append(UnreadableRecord(location: location, reason: "\(key)[\(i)]: \(error.reason)"))
            }
        }
    }

    /// Columns a dump or a logged row may keep the event in (docs/store-events.md).
    public static let payloadColumns = ["payload", "signed_payload", "body", "message", "notification"]

    private static func payloadColumn(_ o: JSONObject) -> (key: String, value: JSONValue)? {
        for name in payloadColumns {
            if let m = o.members.last(where: { $0.key.lowercased() == name }) { return m }
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
}
