import IAPBasics

/// What an order may take, as one text column: per candidate its key and Google purchase
/// token (length-prefixed, so any bytes a receipt put in them come back as they were),
/// purchase time, what the receipt says of the product type and whether it is family-shared.
///
///     candidate := text "," date "," kind "," family "," text ";"     (key, …, token)
///     text      := "-" | decimal-length ":" bytes       date := "-" | decimal millis
///     kind      := "-" | "0" (not a non-consumable) | "1"  family := "0" | "1"
public enum StagedCandidates {
    public static func encode(_ candidates: [(candidate: ClaimCandidate, token: String?)]) -> String {
        var out = ""
        func text(_ t: String?) -> String { t.map { "\($0.utf8.count):\($0)" } ?? "-" }
        for (c, token) in candidates {
            out += text(c.key)
            out += "," + (c.purchaseDate.map { String($0.millis) } ?? "-")
            out += "," + (c.nonConsumable.map { $0 ? "1" : "0" } ?? "-")
            out += "," + (c.familyShared ? "1" : "0")
            out += "," + text(token) + ";"
        }
        return out
    }

    public static func decode(_ text: String) -> [(candidate: ClaimCandidate, token: String?)]? {
        let bytes = Array(text.utf8)
        var at = 0
        var out: [(candidate: ClaimCandidate, token: String?)] = []
        /// A length-prefixed text or "-", then the separator `end`.
        func lengthPrefixed(then end: UInt8) -> String?? {
            var value: String?
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") {
                at += 1
            } else {
                let start = at
                while at < bytes.count, bytes[at] != UInt8(ascii: ":") { at += 1 }
                guard at < bytes.count, at - start <= 9,
                    let length = Int(String(decoding: bytes[start..<at], as: UTF8.self)),
                    length >= 0, length <= bytes.count - at - 1
                else { return nil }
                value = String(decoding: bytes[(at + 1)..<(at + 1 + length)], as: UTF8.self)
                at += 1 + length
            }
            guard at < bytes.count, bytes[at] == end else { return nil }
            at += 1
            return .some(value)
        }
        func field() -> [UInt8]? {
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: ","), bytes[at] != UInt8(ascii: ";") { at += 1 }
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return Array(bytes[start..<at])
        }
        while at < bytes.count {
            var c = ClaimCandidate.empty
            guard let key = lengthPrefixed(then: UInt8(ascii: ",")) else { return nil }
            c.key = key
            guard let date = field(), let kind = field(), let family = field() else { return nil }
            if date != Array("-".utf8) {
                guard let millis = Int64(String(decoding: date, as: UTF8.self)),
                    let t = Timestamp(millis: millis, hasMilliseconds: millis % 1000 != 0)
                else { return nil }
                c.purchaseDate = t
            }
            switch String(decoding: kind, as: UTF8.self) {
            case "-": c.nonConsumable = nil
            case "0": c.nonConsumable = false
            case "1": c.nonConsumable = true
            default: return nil
            }
            switch String(decoding: family, as: UTF8.self) {
            case "0": c.familyShared = false
            case "1": c.familyShared = true
            default: return nil
            }
            guard let token = lengthPrefixed(then: UInt8(ascii: ";")) else { return nil }
            out.append((c, token))
        }
        return out
    }
}
