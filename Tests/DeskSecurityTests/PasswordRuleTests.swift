import DeskSecurity
import Testing

@Suite("The desk's password rule")
struct PasswordRuleTests {
    @Test("a password under 12 characters is refused, saying how long it is")
    func tooShort() {
        #expect(throws: DeskSecurityError.self) { try PasswordHash.make(password: "") }
        do {
            _ = try PasswordHash.make(password: "elevenchars")
            Issue.record("an 11-character password was hashed")
        } catch {
            #expect(error.code == .passwordTooShort)
            #expect(error.reason.contains("11"))
        }
    }

    @Test("characters are Unicode scalars: 11 accented letters are too few whether composed or not")
    func countsScalarsAfterNormalising() {
        let composed = String(repeating: "\u{E9}", count: 11)  // é as one scalar
        let decomposed = String(repeating: "e\u{301}", count: 11)  // e + combining acute: NFKC makes it é
        for password in [composed, decomposed] {
            let refusal = DeskSecurityError(
                .passwordTooShort, "a password needs at least 12 characters; this one has 11")
            #expect(throws: refusal) { try PasswordHash.make(password: password) }
        }
    }

    @Test("a password over 1024 bytes is refused before it is hashed")
    func tooLong() {
        let overlong = String(repeating: "ü", count: 513)  // 1026 bytes of UTF-8
        let refusal = DeskSecurityError(
            .passwordTooLong, "a password may have at most 1024 bytes of UTF-8; this one has 1026")
        #expect(throws: refusal) { try PasswordHash.make(password: overlong) }
    }

    @Test("the same password typed composed or decomposed verifies against one hash")
    func normalised() throws {
        let stored = try PasswordHash.make(password: "Cr\u{E8}me br\u{FB}l\u{E9}e au caf\u{E9}")
        #expect(PasswordHash.verify("Cre\u{300}me bru\u{302}le\u{301}e au cafe\u{301}", against: stored))
    }
}
