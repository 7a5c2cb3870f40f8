/// A Google purchase token as a night of store events remembers it for each order: 8 bytes
/// of a keyed hash, not the token's hundred and more, so that a refund naming only a token
/// can find its order among a million without the night keeping every token. The key is the
/// process's random seed, so no receipt can be made to meet another's hash; 0 means none.
enum TokenHash {
    static func of(_ token: String) -> UInt64 {
        var h = Hasher()
        h.combine(token)
        let v = UInt64(bitPattern: Int64(h.finalize()))
        return v == 0 ? 1 : v
    }
}
