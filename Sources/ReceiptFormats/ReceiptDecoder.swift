import IAPBasics
import JSONText

#if canImport(Glibc)
    import Glibc
#endif

/// Recognises a payload by its content and hands it to the decoder of its kind.
///
///   raw DER (first byte 0x30)                       -> Apple app receipt
///   `{…}` JSON                                      -> verifyReceipt response, Google purchase
///                                                      (any wrapper), `{"signedPayload": JWS}`,
///                                                      or a JWS transaction's decoded JSON
///   three base64url segments `xxx.yyy.zzz`          -> App Store JWS
///   other base64                                    -> decoded, then: DER app receipt, JSON as
///                                                      above, or an iOS 6 old-style plist
public enum ReceiptDecoder {
    public static func decode(_ payload: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        guard payload.count <= limits.maxPayloadBytes else {
            throw DecodeError(
                "too-large", "payload of \(payload.count) bytes exceeds the cap of \(limits.maxPayloadBytes)", at: 0)
        }
        guard let first = payload.first else { throw DecodeError("empty", "the payload is empty", at: 0) }
        if first == 0x30 { return try AppReceiptDecoder.decode(der: payload, limits: limits) }

        let (start, end) = trimmedBounds(payload)
        guard start < end else { throw DecodeError("empty", "the payload is only white space", at: 0) }
        // Most payloads have nothing to trim: no copy of a 10 KB receipt then.
        let text = start == 0 && end == payload.count ? payload : Array(payload[start..<end])
        if text[0] == 0x7B {
            return try shift(start) { () throws(DecodeError) in try decodeJSON(text, limits: limits) }
        }
        if isJWS(text) {
            return try shift(start) { () throws(DecodeError) in try JWSDecoder.decode(text, limits: limits) }
        }

        let decoded: [UInt8]
        do {
            decoded = try Base64.decode(text, maxBytes: limits.maxPayloadBytes)
        } catch {
            throw DecodeError(
                "not-a-receipt",
                "not a receipt: neither DER, JSON, JWS nor base64 (\(error.reason))", at: error.offset + start)
        }
        guard let inner = decoded.first else { throw DecodeError("empty", "base64 text decodes to nothing", at: start) }
        if inner == 0x30 { return try AppReceiptDecoder.decode(der: decoded, limits: limits) }
        let (s, e) = trimmedBounds(decoded)
        guard s < e, decoded[s] == 0x7B else {
            throw DecodeError("not-a-receipt", "base64 text decodes to neither DER, JSON nor a property list", at: 0)
        }
        let body = Array(decoded[s..<e])
        if looksLikeOldStylePlist(body) { return try LegacyReceiptDecoder.decode(plist: decoded, limits: limits) }
        return try shift(s) { () throws(DecodeError) in try decodeJSON(body, limits: limits) }
    }

    /// A payload as text, a dump's field: a JWS, most of a night's receipts, is read where
    /// it lies; any other kind is read as its bytes (`decode(_: [UInt8])`), the same way.
    public static func decode(_ payload: String, limits: Limits = .standard) throws(DecodeError) -> Receipt {
        var text = payload
        let result = text.withUTF8 { utf8 in
            Result { () throws(DecodeError) in try decode(utf8: UnsafeRawBufferPointer(utf8), limits: limits) }
        }
        return try result.get()
    }

    /// The checks `decode(_: [UInt8])` makes before it takes a payload for a JWS, in its order.
    private static func decode(utf8 payload: UnsafeRawBufferPointer, limits: Limits) throws(DecodeError) -> Receipt {
        guard payload.count <= limits.maxPayloadBytes, let first = payload.first, first != 0x30 else {
            return try decode(Array(payload), limits: limits)
        }
        let (start, end) = trimmedBounds(payload)
        let text = UnsafeRawBufferPointer(rebasing: payload[start..<end])
        guard start < end, payload[start] != 0x7B, isJWS(text) else {
            return try decode(Array(payload), limits: limits)
        }
        return try shift(start) { () throws(DecodeError) in
            try JWSDecoder.decode(text, origin: .top(nil), limits: limits, in: nil)
        }
    }

    /// JSON payloads: a verifyReceipt response, a Google purchase in any wrapper, a stored
    /// App Store notification body `{"signedPayload": "<JWS>"}`, or a signed transaction's
    /// decoded JSON stored without its JWS.
    static func decodeJSON(_ bytes: [UInt8], limits: Limits) throws(DecodeError) -> Receipt {
        let value = try JSONParser.parse(bytes, limits: limits)
        guard let obj = value.object else { throw DecodeError("not-a-receipt", "JSON payload is not an object", at: 0) }
        // Unity IAP wraps an App Store receipt as {"Store":"AppleAppStore","Payload":"<base64>"}.
        if obj["Store"]?.string == "AppleAppStore", let payload = obj["Payload"]?.string {
            return try decode(payload, limits: limits)
        }
        if let jws = obj["signedPayload"]?.string {
            return try JWSDecoder.decode(Array(jws.utf8), limits: limits)
        }
        if GooglePurchaseDecoder.looksLike(obj) {
            return try GooglePurchaseDecoder.decode(json: obj, bytes: bytes, limits: limits)
        }
        if VerifyReceiptDecoder.looksLike(obj) {
            return try VerifyReceiptDecoder.decode(json: obj, limits: limits)
        }
        if JWSDecoder.looksLikeDecodedTransaction(obj) {
            return try JWSDecoder.decode(decodedTransaction: obj, bytes: bytes)
        }
        let keys = obj.keys.prefix(8).joined(separator: ", ")
        let reason =
            "JSON object is neither a verifyReceipt response, a Google purchase nor a decoded App Store transaction"
        throw DecodeError("not-a-receipt", "\(reason) (keys: \(keys))", at: 0)
    }

    /// `xxx.yyy.zzz` with only base64url characters: a compact JWS.
    /// Two dots make a compact JWS: the base64 of the other kinds never holds one. The JWS
    /// decoder then checks every character, so this only has to find the dots, which
    /// `memchr` does far faster than a loop over a 10 KB receipt.
    static func isJWS(_ text: [UInt8]) -> Bool {
        text.withUnsafeBytes { isJWS($0) }
    }

    static func isJWS(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var dots = 0
        var from = 0
        while from < bytes.count, let hit = memchr(base + from, 0x2E, bytes.count - from) {
            dots += 1
            if dots > 2 { return false }
            from = base.distance(to: UnsafeRawPointer(hit)) + 1
        }
        return dots == 2
    }

    /// An old-style plist writes `"key" = value;` where JSON writes `"key": value`.
    static func looksLikeOldStylePlist(_ body: [UInt8]) -> Bool {
        var i = 1
        while i < body.count, isSpace(body[i]) { i += 1 }
        guard i < body.count, body[i] == 0x22 else { return false }
        i += 1
        while i < body.count, body[i] != 0x22 {
            if body[i] == 0x5C { i += 1 }
            i += 1
        }
        i += 1
        while i < body.count, isSpace(body[i]) { i += 1 }
        return i < body.count && body[i] == 0x3D
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    static func trimmedBounds(_ b: [UInt8]) -> (Int, Int) {
        b.withUnsafeBytes { trimmedBounds($0) }
    }

    static func trimmedBounds(_ b: UnsafeRawBufferPointer) -> (Int, Int) {
        var s = 0
        var e = b.count
        while s < e, isSpace(b[s]) { s += 1 }
        while e > s, isSpace(b[e - 1]) { e -= 1 }
        return (s, e)
    }

    static func shift(_ base: Int, _ body: () throws(DecodeError) -> Receipt) throws(DecodeError) -> Receipt {
        do { return try body() } catch { throw error.shifted(by: base) }
    }
}
