import DeskSecurity
import Testing

@Suite("Session and CSRF tokens")
struct SecretTokenTests {
    @Test("tokens are 43 characters of URL-safe base64 (32 random bytes), each one new")
    func shape() {
        let tokens = (0..<200).map { _ in SecretToken.make() } + [SessionToken.make(), CSRFToken.make()]
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.count == 43)
            #expect(SecretToken.isWellFormed(token))
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        }
    }

    @Test("a token of the wrong length or alphabet is not well formed")
    func malformed() {
        let token = SecretToken.make()
        #expect(!SecretToken.isWellFormed(""))
        #expect(!SecretToken.isWellFormed(String(token.dropLast())))
        #expect(!SecretToken.isWellFormed(token + "A"))
        #expect(!SecretToken.isWellFormed(String(token.dropLast()) + "="))
        #expect(!SecretToken.isWellFormed(String(token.dropLast()) + "+"))
        #expect(!SecretToken.isWellFormed(String(token.dropLast()) + "\u{E9}"))
    }

    @Test("a session's digest is the SHA-256 of its token in hex: stable, and not the token")
    func digest() {
        let token = SessionToken.make()
        let digest = SessionToken.digest(of: token)
        #expect(digest == SessionToken.digest(of: token))
        #expect(digest != token)
        #expect(digest.count == 64)
        #expect(digest != SessionToken.digest(of: SessionToken.make()))
        // FIPS 180-2's test vector.
        #expect(SessionToken.digest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("constant-time comparison: equal only for the same bytes and length")
    func constantTime() {
        let token = CSRFToken.make()
        #expect(ConstantTime.equal(token, String(token)))
        #expect(!ConstantTime.equal(token, CSRFToken.make()))
        #expect(!ConstantTime.equal(token, String(token.dropLast())))
        #expect(ConstantTime.equal("", ""))
    }

    @Test("a request's CSRF token matches only the session's own")
    func csrf() {
        let kept = CSRFToken.make()
        #expect(CSRFToken.matches(sent: kept, kept: kept))
        #expect(!CSRFToken.matches(sent: CSRFToken.make(), kept: kept))
        #expect(!CSRFToken.matches(sent: nil, kept: kept))
        #expect(!CSRFToken.matches(sent: "", kept: ""))
    }
}
