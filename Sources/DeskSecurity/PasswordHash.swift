internal import CSodium

/// Desk passwords, kept only as Argon2id hashes in libsodium's encoded form
/// (`$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>`: the salt and the cost travel with the hash).
public enum PasswordHash {
    /// Argon2id passes over memory (libsodium's `opslimit`).
    public static let iterations = 2
    /// Argon2id memory in bytes (libsodium's `memlimit`): 64 MiB. With `iterations` this is
    /// libsodium's INTERACTIVE cost, written out so that a libsodium upgrade does not change it,
    /// and above OWASP's minimum for Argon2id (19 MiB, 2 iterations, 1 lane; libsodium always
    /// uses 1 lane). Measured on the development host (AMD EPYC, 2 cores, libsodium 1.0.18, best
    /// of 7): making a hash takes 0.075 s, verifying one 0.06 s (libsodium's MODERATE, 256 MiB
    /// and 3 passes: 0.38 s; OWASP's minimum: 0.013 s). Each login holds 64 MiB while it runs,
    /// so a server bounds how many run at once.
    public static let memoryBytes = 64 * 1024 * 1024

    /// The encoded hash of a new password (`PasswordRule`: normalised, long enough, not too long).
    public static func make(password: String) throws(DeskSecurityError) -> String {
        let accepted = try PasswordRule.newPassword(password)
        Sodium.ready()
        var encoded = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        let status = Sodium.withUTF8(of: accepted) { bytes, count in
            crypto_pwhash_argon2id_str(&encoded, bytes, UInt64(count), UInt64(iterations), memoryBytes)
        }
        guard status == 0 else {
            throw DeskSecurityError(
                .hashingFailed, "Argon2id could not hash: \(memoryBytes >> 20) MiB of memory were not to be had")
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `stored` was made from. False for a malformed or foreign
    /// `stored`, and for a password over `PasswordRule.maximumBytes` (refused unhashed).
    public static func verify(_ password: String, against stored: String) -> Bool {
        guard let candidate = try? PasswordRule.candidate(password), var terminated = nulTerminated(stored) else {
            return false
        }
        Sodium.ready()
        return Sodium.withUTF8(of: candidate) { bytes, count in
            crypto_pwhash_str_verify(&terminated, bytes, UInt64(count)) == 0
        }
    }

    /// Spends the work of one verification and answers false: what a login does for a user name
    /// that does not exist, so that its answer takes as long as a wrong password's and does not
    /// tell which names exist.
    public static func verifyUnknownUser(_ password: String) -> Bool {
        if let dummy = dummyHash {
            _ = verify(password, against: dummy)
        } else {
            _ = try? make(password: SecretToken.make())
        }
        return false
    }

    /// Whether `stored` should be made again at the next successful login: it is not Argon2id
    /// at exactly today's cost (weaker, stronger, Argon2i, or not a hash we can read).
    public static func needsRehash(_ stored: String) -> Bool {
        guard var terminated = nulTerminated(stored) else { return true }
        Sodium.ready()
        return crypto_pwhash_str_needs_rehash(&terminated, UInt64(iterations), memoryBytes) != 0
    }

    /// A hash of a random password nobody knows, made once on first use (that first unknown-user
    /// login costs one hash more).
    private static let dummyHash: String? = try? make(password: SecretToken.make())

    /// `stored` in a zeroed buffer of libsodium's full string size: its C functions take a
    /// fixed-size array and must not read past our bytes. Nil when it cannot be a hash.
    private static func nulTerminated(_ stored: String) -> [CChar]? {
        let size = Int(crypto_pwhash_argon2id_STRBYTES)
        let bytes = Array(stored.utf8)
        guard bytes.count < size, !bytes.contains(0) else { return nil }
        return bytes.map { CChar(bitPattern: $0) } + [CChar](repeating: 0, count: size - bytes.count)
    }
}
