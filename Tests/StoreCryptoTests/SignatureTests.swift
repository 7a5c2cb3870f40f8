import StoreCrypto
import Testing

@Suite("Signatures")
struct SignatureTests {
    let message = Array("{\"orderId\":\"GPA.1234-5678-9012-34567\"}\n".utf8)

    @Test(
        "an RSA signature verifies with SHA-1 and SHA-256, and only with the digest it was made with",
        arguments: DigestAlgorithm.allCases)
    func rsaRoundTrip(digest: DigestAlgorithm) throws {
        let world = try TestWorld.shared.get()
        let signature = try world.leafKey.signRSA(message, digest: digest)
        let key = try world.leafKey.publicKey()
        #expect(signature.count == 256)
        #expect(try key.verifyRSA(signature: signature, over: message, digest: digest) == .valid)
        let other: DigestAlgorithm = digest == .sha1 ? .sha256 : .sha1
        #expect(
            try key.verifyRSA(signature: signature, over: message, digest: other) == .invalid(reason: "bad signature"))
    }

    @Test("an ES256 signature is 64 bytes of r ‖ s and verifies")
    func es256RoundTrip() throws {
        let world = try TestWorld.shared.get()
        let signature = try world.ecKey.signES256(message)
        #expect(signature.count == 64)
        #expect(try world.ecKey.publicKey().verifyES256(signature: signature, over: message) == .valid)
    }

    @Test("one flipped byte in the signed data or in the signature makes it invalid")
    func flippedBytes() throws {
        let world = try TestWorld.shared.get()
        let rsaKey = try world.leafKey.publicKey()
        let ecKey = try world.ecKey.publicKey()
        let rsaSignature = try world.leafKey.signRSA(message, digest: .sha1)
        let ecSignature = try world.ecKey.signES256(message)
        var tampered = message
        tampered[10] ^= 0x01
        #expect(try !rsaKey.verifyRSA(signature: rsaSignature, over: tampered, digest: .sha1).isValid)
        #expect(try !ecKey.verifyES256(signature: ecSignature, over: tampered).isValid)
        var badRSA = rsaSignature
        badRSA[100] ^= 0x80
        var badEC = ecSignature
        badEC[40] ^= 0x80
        #expect(
            try rsaKey.verifyRSA(signature: badRSA, over: message, digest: .sha1) == .invalid(reason: "bad signature"))
        #expect(try ecKey.verifyES256(signature: badEC, over: message) == .invalid(reason: "bad signature"))
    }

    @Test(
        "an ES256 signature that is not exactly 64 bytes is rejected, DER form included",
        arguments: [0, 63, 65, 72])
    func es256WrongLength(length: Int) throws {
        let world = try TestWorld.shared.get()
        let signature = try world.ecKey.signES256(message)
        let resized = Array((signature + signature).prefix(length))
        let verdict = try world.ecKey.publicKey().verifyES256(signature: resized, over: message)
        #expect(verdict == .invalid(reason: "ES256 signature is \(length) bytes, not 64 (r ‖ s)"))
    }

    @Test("an ES256 signature of all zeros or all ones is invalid, not a crash")
    func es256DegenerateValues() throws {
        let key = try TestWorld.shared.get().ecKey.publicKey()
        #expect(try !key.verifyES256(signature: [UInt8](repeating: 0, count: 64), over: message).isValid)
        #expect(try !key.verifyES256(signature: [UInt8](repeating: 0xFF, count: 64), over: message).isValid)
    }

    @Test("a signature made by another key is invalid")
    func otherKey() throws {
        let world = try TestWorld.shared.get()
        let rsaSignature = try world.rootKey.signRSA(message, digest: .sha256)
        #expect(
            try !world.leafKey.publicKey().verifyRSA(signature: rsaSignature, over: message, digest: .sha256).isValid)
        let ecSignature = try world.otherECKey.signES256(message)
        #expect(try !world.ecKey.publicKey().verifyES256(signature: ecSignature, over: message).isValid)
    }

    @Test("a key of the wrong kind gives an invalid verdict naming the key, and refuses to sign")
    func wrongKeyKind() throws {
        let world = try TestWorld.shared.get()
        let rsaSignature = try world.leafKey.signRSA(message, digest: .sha256)
        let ecSignature = try world.ecKey.signES256(message)
        #expect(
            try world.ecKey.publicKey().verifyRSA(signature: rsaSignature, over: message, digest: .sha256)
                == .invalid(reason: "key is EC P-256, not RSA"))
        #expect(
            try world.leafKey.publicKey().verifyES256(signature: ecSignature, over: message)
                == .invalid(reason: "key is RSA-2048, not EC P-256"))
        #expect(throws: CryptoError.self) { try world.ecKey.signRSA(message, digest: .sha256) }
        #expect(throws: CryptoError.self) { try world.leafKey.signES256(message) }
    }

    @Test("an RSA-1024 key, as iOS 6 receipts used, signs SHA-1 that verifies")
    func rsa1024() throws {
        let key = try PrivateKey.generate(.rsa(bits: 1024))
        #expect(key.kind == .rsa(bits: 1024))
        let signature = try key.signRSA(message, digest: .sha1)
        #expect(signature.count == 128)
        #expect(try key.publicKey().verifyRSA(signature: signature, over: message, digest: .sha1) == .valid)
    }

    @Test("one key verifies from many tasks at once")
    func concurrentVerification() async throws {
        let world = try TestWorld.shared.get()
        let key = try world.ecKey.publicKey()
        let rsaKey = try world.leafKey.publicKey()
        let ecSignature = try world.ecKey.signES256(message)
        let rsaSignature = try world.leafKey.signRSA(message, digest: .sha256)
        let message = self.message
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var ok = true
                    for _ in 0..<20 {
                        ok = try ok && key.verifyES256(signature: ecSignature, over: message).isValid
                        ok = try ok && rsaKey.verifyRSA(signature: rsaSignature, over: message, digest: .sha256).isValid
                    }
                    return ok
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [Bool](repeating: true, count: 16))
    }
}
