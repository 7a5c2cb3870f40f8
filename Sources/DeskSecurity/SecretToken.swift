internal import CSodium

/// A secret handed to a browser (a session id, a CSRF token): 32 bytes from libsodium's
/// `randombytes_buf` (the kernel's getrandom), written as URL-safe base64 without padding, 43
/// characters of `A-Z a-z 0-9 - _`. 256 bits, twice what CONTRACT §14 asks for a session.
public enum SecretToken {
    public static let byteCount = 32
    /// `byteCount` bytes in base64 without padding: 4 characters for every 3 bytes, rounded up.
    public static let characterCount = (byteCount * 4 + 2) / 3

    /// A new token, never handed out before (with overwhelming probability).
    public static func make() -> String {
        Sodium.ready()
        var random = [UInt8](repeating: 0, count: byteCount)
        defer { sodium_memzero(&random, random.count) }
        randombytes_buf(&random, random.count)
        let variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING
        var text = [CChar](repeating: 0, count: sodium_base64_encoded_len(byteCount, variant))
        defer { sodium_memzero(&text, text.count) }
        _ = sodium_bin2base64(&text, text.count, random, random.count, variant)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `text` has a token's shape: the right length and alphabet. What a browser sends is
    /// checked so before it is hashed or looked up.
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == characterCount && text.utf8.allSatisfy(isURLSafeBase64)
    }

    private static func isURLSafeBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
