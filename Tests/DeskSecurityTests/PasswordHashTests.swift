import CSodium
import DeskSecurity
import Testing

@Suite("Desk password hashes")
struct PasswordHashTests {
    static let password = "correct horse battery staple"
    /// One Argon2id hash for the whole suite: each costs a tenth of a second or more.
    static let stored = Result { () throws(DeskSecurityError) in try PasswordHash.make(password: password) }

    @Test("a hash verifies with its password and not with another")
    func verifies() throws {
        let stored = try Self.stored.get()
        #expect(PasswordHash.verify(Self.password, against: stored))
        #expect(!PasswordHash.verify("correct horse battery stapler", against: stored))
    }

    @Test("the hash is Argon2id at the chosen cost, 64 MiB and 2 passes, with its own salt")
    func encodedCost() throws {
        let stored = try Self.stored.get()
        #expect(PasswordHash.memoryBytes == 64 << 20)
        #expect(PasswordHash.iterations == 2)
        #expect(stored.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"))
        #expect(!stored.contains(Self.password))
    }

    @Test("a hash at today's cost needs no rehash; a weaker one, an Argon2i one or garbage does")
    func rehash() throws {
        #expect(!PasswordHash.needsRehash(try Self.stored.get()))
        #expect(PasswordHash.needsRehash(try Self.weakHash(Self.password)))
        #expect(PasswordHash.needsRehash("$argon2i$v=19$m=65536,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA"))
        #expect(PasswordHash.needsRehash("not a hash"))
        #expect(PasswordHash.needsRehash(String(repeating: "a", count: 500)))
    }

    @Test("a weaker hash still verifies, so its user can log in and have it remade")
    func weakerStillVerifies() throws {
        let weak = try Self.weakHash(Self.password)
        #expect(PasswordHash.verify(Self.password, against: weak))
        #expect(!PasswordHash.verify("another password", against: weak))
    }

    @Test("an unknown user's login spends a verification and fails")
    func unknownUser() {
        #expect(!PasswordHash.verifyUnknownUser(Self.password))
        #expect(!PasswordHash.verifyUnknownUser(""))
    }

    @Test("a malformed stored hash and an overlong password verify as false")
    func malformed() throws {
        #expect(!PasswordHash.verify(Self.password, against: ""))
        #expect(!PasswordHash.verify(Self.password, against: "$argon2id$v=19$m=65536,t=2,p=1$garbage"))
        let overlong = String(repeating: "x", count: PasswordRule.maximumBytes + 1)
        #expect(!PasswordHash.verify(overlong, against: try Self.stored.get()))
    }

    /// Argon2id at the smallest cost libsodium accepts (1 pass, 8 KiB): a hash from a weaker time.
    static func weakHash(_ password: String) throws -> String {
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_STRBYTES))
        let bytes = Array(password.utf8).map { CChar(bitPattern: $0) }
        let status = crypto_pwhash_argon2id_str(&out, bytes, UInt64(bytes.count), 1, 8192)
        try #require(status == 0)
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
