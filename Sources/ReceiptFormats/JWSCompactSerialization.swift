import IAPBasics
import JSONText

#if canImport(Glibc)
    import Glibc
#endif

// Compact JWS [RFC 7515 §7.1; formats.md §4.1]:
//   BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature), no padding.
// Header as Apple writes it [ASL-swift `ChainVerifier.swift`; OBS]:
//   alg   "ES256"
//   x5c   [leaf, intermediate, root], standard base64 DER
//   kid   absent; "Apple_Xcode_Key" on StoreKit Testing in Xcode tokens
// Payload: a JSON object (transaction, renewal info, app transaction, notification).
// Signature: raw r ‖ s over the ASCII bytes `header.payload`.

/// A compact JWS split into its parts, the payload parsed. Errors point into the text.
struct JWSCompact {
    /// The signing input: the header segment (the cached array when the header was read
    /// before), and the rest from the dot to the end of the payload segment.
    var header: [UInt8]
    var afterHeader: [UInt8]
    var signature: [UInt8]
    var algorithm: String?
    var keyID: String?
    var certificates: [[UInt8]]
    var payload: StoreJSONFields<AppStoreField>

    /// `origin` maps offsets in `text` to reported ones (a nested JWS sits inside a string).
    /// `text` is borrowed (a dump's field, read where it lies): every part kept is copied out.
    init(parsing text: UnsafeRawBufferPointer, origin: TextOrigin, limits: Limits) throws(DecodeError) {
        guard text.count <= limits.maxPayloadBytes else {
            let reason = "JWS of \(text.count) bytes exceeds the cap of \(limits.maxPayloadBytes)"
            throw origin.relocate(DecodeError("too-large", reason, at: 0))
        }
        var start = 0
        var end = text.count
        while start < end, JWSCompact.isSpace(text[start]) { start += 1 }
        while end > start, JWSCompact.isSpace(text[end - 1]) { end -= 1 }
        // The header as read before, when the text starts with one read before and a dot (a
        // header has no dot, so that dot is the first); errors come in the order they always
        // did (the count of segments, each segment's base64, then the header's JSON).
        let cached = JWSHeaderCache.shared.lookUp(
            startOf: UnsafeRawBufferPointer(rebasing: text[start..<end]), limits: limits)
        let dots = try JWSCompact.dots(text, start..<end, origin, first: cached.map { start + $0.text.count })
        let headerJSON = cached == nil ? try JWSCompact.segment(text, start..<dots.0, "header", origin, limits) : []
        let payload = try JWSCompact.segment(text, (dots.0 + 1)..<dots.1, "payload", origin, limits)
        signature = try JWSCompact.segment(text, (dots.1 + 1)..<end, "signature", origin, limits)
        afterHeader = Array(text[dots.0..<dots.1])

        if let cached {
            self.header = cached.text
            let parsed = cached.parsed
            (algorithm, keyID, certificates) = (parsed.algorithm, parsed.keyID, parsed.certificates)
        } else {
            self.header = Array(text[start..<dots.0])
            let headerOrigin = origin.inSegment(at: start, json: headerJSON)
            let headerFields = try StoreJSONFields<String>.parse(
                headerJSON, origin: headerOrigin, limits: limits, what: "the JWS header")
            algorithm = try headerFields.text("alg")
            keyID = try headerFields.text("kid")
            certificates = try JWSCompact.certificateChain(headerFields, limits: limits)
            let parsed = JWSHeaderCache.Parsed(algorithm: algorithm, keyID: keyID, certificates: certificates)
            JWSHeaderCache.shared.keep(self.header, limits: limits, parsed)
        }
        let payloadOrigin = origin.inSegment(at: dots.0 + 1, json: payload)
        self.payload = try StoreJSONFields.scan(
            payload, origin: payloadOrigin, limits: limits, what: "the JWS payload")
    }

    /// Where the two dots are (memchr: a notification is several kilobytes); any other count
    /// of segments than three is an error at the place it shows. `first`: the first dot, when
    /// known (after a cached header), so that the header's bytes are not searched again.
    private static func dots(_ text: UnsafeRawBufferPointer, _ range: Range<Int>, _ origin: TextOrigin, first: Int?)
        throws(DecodeError) -> (Int, Int)
    {
        // The first three dots; -1 for those not there.
        var found = (first ?? -1, -1, -1)
        var count = first == nil ? 0 : 1
        if let base = text.baseAddress {
            var at = first.map { $0 + 1 } ?? range.lowerBound
            while at < range.upperBound, count < 3,
                let hit = memchr(base + at, 0x2E, range.upperBound - at)
            {
                let i = base.distance(to: UnsafeRawPointer(hit))
                switch count {
                case 0: found.0 = i
                case 1: found.1 = i
                default: found.2 = i
                }
                count += 1
                at = i + 1
            }
        }
        if count == 3 {
            let reason = "a compact JWS has 3 dot-separated segments; a fourth starts here"
            throw origin.relocate(DecodeError("bad-jws", reason, at: found.2))
        }
        guard count == 2 else {
            let reason = "a compact JWS has 3 dot-separated segments, found \(count + 1)"
            throw origin.relocate(DecodeError("bad-jws", reason, at: range.upperBound))
        }
        return (found.0, found.1)
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private static func segment(
        _ text: UnsafeRawBufferPointer, _ range: Range<Int>, _ name: String, _ origin: TextOrigin,
        _ limits: Limits
    ) throws(DecodeError) -> [UInt8] {
        do {
            return try Base64.decode(
                UnsafeRawBufferPointer(rebasing: text[range]), alphabet: .url, maxBytes: limits.maxPayloadBytes)
        } catch {
            let inText = DecodeError(error.code, "JWS \(name): \(error.reason)", at: range.lowerBound + error.offset)
            throw origin.relocate(inText)
        }
    }

    /// `x5c`: the chain as DER, leaf first; absent means none (the signature check rejects it).
    private static func certificateChain(
        _ header: StoreJSONFields<String>, limits: Limits
    ) throws(DecodeError) -> [[UInt8]] {
        guard let x5c = try header.value("x5c") else { return [] }
        guard case .array(let entries) = x5c else {
            let reason = "x5c must be a list of base64 certificates, found \(x5c.kindName)"
            throw header.fail("bad-jws-header", reason, at: "x5c")
        }
        var chain: [[UInt8]] = []
        for (i, entry) in entries.enumerated() {
            guard case .string(let text) = entry else {
                throw DecodeError(
                    "bad-jws-header", "x5c[\(i)] must be base64 text, found \(entry.kindName)",
                    at: header.origin.offset(of: [.key("x5c"), .index(i)]))
            }
            do {
                chain.append(try Base64.decode(text, alphabet: .standard, maxBytes: limits.maxPayloadBytes))
            } catch {
                throw header.origin.inString(at: [.key("x5c"), .index(i)], json: nil)
                    .relocate(DecodeError(error.code, "x5c[\(i)]: \(error.reason)", at: error.offset))
            }
        }
        return chain
    }
}
