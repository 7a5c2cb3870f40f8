internal import CSodium

/// The session id in the desk's cookie. The ledger keeps only its digest, so a copy of the
/// ledger (or a look at its tables) hands nobody a live session.
public enum SessionToken {
    /// A new session id: a `SecretToken`, made at every login (never one the browser brought).
    public static func make() -> String { SecretToken.make() }

    /// What the ledger keeps for `token`: the SHA-256 of its UTF-8 bytes, 64 lowercase hex digits.
    /// A token has 256 random bits, so a plain digest needs no salt and no slow hash.
    public static func digest(of token: String) -> String {
        Sodium.ready()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = Sodium.withUTF8(of: token) { bytes, count in
            bytes.withMemoryRebound(to: UInt8.self, capacity: count) { crypto_hash_sha256(&digest, $0, UInt64(count)) }
        }
        var hex = [CChar](repeating: 0, count: digest.count * 2 + 1)
        _ = sodium_bin2hex(&hex, hex.count, digest, digest.count)
        return String(decoding: hex.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
