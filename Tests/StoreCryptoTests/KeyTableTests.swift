import Testing

@testable import StoreCrypto

/// A key that signs many receipts gets its own table of multiples (`P256KeyTable`); its
/// answers must be exactly those of OpenSSL's own ES256 check.
@Suite("ES256 with a key's own table")
struct KeyTableTests {
    /// The order of P-256's group.
    static let n: [UInt8] = hexBytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { i in
            UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) ?? 0
        }
    }

    /// OpenSSL's verdict through EVP, which never uses the key's table.
    static func openSSLSays(_ key: PublicKey, _ raw: [UInt8], _ message: [UInt8]) throws -> Bool {
        guard let der = try ECDSASignatureFormat.der(fromRaw: raw) else { return false }
        return try key.verifyTemplate(.sha256).verify(der, over: message)
    }

    /// `s` replaced by n − s: the other signature ECDSA accepts for the same (r, message).
    static func negatedS(_ raw: [UInt8]) -> [UInt8] {
        var out = Array(raw.prefix(32))
        var borrow = 0
        var low = [UInt8](repeating: 0, count: 32)
        for i in stride(from: 31, through: 0, by: -1) {
            var d = Int(Self.n[i]) - Int(raw[32 + i]) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 256 }
            low[i] = UInt8(d)
        }
        out += low
        return out
    }

    @Test("after a few checks a key has its table, and valid, tampered and reshaped signatures get OpenSSL's verdict")
    func agreesWithOpenSSL() throws {
        let world = try TestWorld.shared.get()
        let key = try world.ecKey.publicKey()
        for i in 0..<PublicKey.es256TableAfter {
            let message = Array("warm-up \(i)".utf8)
            #expect(try key.verifyES256(signature: world.ecKey.signES256(message), over: message) == .valid)
        }
        let table = try #require(key.es256Table())
        for i in 0..<60 {
            let message = Array("{\"transactionId\":\"\(2_000_000_000 + i)\",\"price\":\(i * 990)}".utf8)
            let signature = try world.ecKey.signES256(message)
            let digest = try Digest.sha256(message)
            #expect(table.verify(raw: signature, sha256: digest) == true)
            #expect(try key.verifyES256(signature: signature, over: message) == .valid)

            var flippedMessage = message
            flippedMessage[i % message.count] ^= 0x20
            var flippedSignature = signature
            flippedSignature[i % 64] ^= UInt8(1 << (i % 8))
            let otherKeys = try world.otherECKey.signES256(message)
            let cases: [([UInt8], [UInt8])] = [
                (signature, flippedMessage), (flippedSignature, message), (otherKeys, message),
                (Self.negatedS(signature), message), (Array(signature.suffix(32) + signature.prefix(32)), message),
            ]
            for (raw, signed) in cases {
                let expected = try Self.openSSLSays(key, raw, signed)
                #expect(table.verify(raw: raw, sha256: try Digest.sha256(signed)) == expected)
                #expect(try key.verifyES256(signature: raw, over: signed).isValid == expected)
            }
        }
    }

    @Test("r or s of zero, of n or above, or all ones is invalid, as OpenSSL says")
    func outOfRange() throws {
        let world = try TestWorld.shared.get()
        let key = try world.ecKey.publicKey()
        let message = Array("out of range".utf8)
        let good = try world.ecKey.signES256(message)
        let table = try #require(P256KeyTable(key: key.handle))
        let digest = try Digest.sha256(message)
        let zero = [UInt8](repeating: 0, count: 32)
        let ones = [UInt8](repeating: 0xFF, count: 32)
        var nMinusOne = Self.n
        nMinusOne[31] -= 1
        let r = Array(good.prefix(32))
        let s = Array(good.suffix(32))
        let signatures: [[UInt8]] = [
            zero + s, r + zero, Self.n + s, r + Self.n, ones + s, r + ones, nMinusOne + s, r + nMinusOne, zero + zero,
        ]
        for raw in signatures {
            #expect(table.verify(raw: raw, sha256: digest) == false)
            #expect(try Self.openSSLSays(key, raw, message) == false)
        }
        #expect(table.verify(raw: good, sha256: digest) == true)
        #expect(
            table.verify(raw: Self.negatedS(good), sha256: digest)
                == (try Self.openSSLSays(key, Self.negatedS(good), message)))
    }

    @Test("signatures checked with their batch's inverses get the verdicts they get alone, in any order")
    func batchedInverses() throws {
        let world = try TestWorld.shared.get()
        let key = try world.ecKey.publicKey()
        let table = try #require(P256KeyTable(key: key.handle))
        var checks: [(raw: [UInt8], digest: [UInt8])] = []
        for i in 0..<24 {
            let message = Array("batched \(i)".utf8)
            let good = try world.ecKey.signES256(message)
            var flipped = good
            flipped[i % 64] ^= 0x01
            let digest = try Digest.sha256(message)
            checks += [(good, digest), (flipped, digest), (Self.negatedS(good), digest)]
        }
        // s of zero and of n are left out of the batch and still refused.
        checks.append((Array(checks[0].raw.prefix(32)) + [UInt8](repeating: 0, count: 32), checks[0].digest))
        checks.append((Array(checks[0].raw.prefix(32)) + Self.n, checks[0].digest))
        let alone = checks.map { table.verify(raw: $0.raw, sha256: $0.digest) }
        #expect(alone.contains(true) && alone.contains(false))
        let inverses = ES256Inverses(signatures: checks.map(\.raw))
        let inBatch = inverses.whileChecking { checks.map { table.verify(raw: $0.raw, sha256: $0.digest) } }
        #expect(inBatch == alone)
        let reversed = ES256Inverses(signatures: checks.map(\.raw)).whileChecking {
            checks.reversed().map { table.verify(raw: $0.raw, sha256: $0.digest) }
        }
        #expect(reversed == alone.reversed())
        // A signature the batch does not hold is checked with an inverse of its own.
        let other = try world.ecKey.signES256(Array("not in the batch".utf8))
        let otherDigest = try Digest.sha256(Array("not in the batch".utf8))
        #expect(ES256Inverses(signatures: []).whileChecking { table.verify(raw: other, sha256: otherDigest) } == true)
        #expect(inverses.whileChecking { table.verify(raw: other, sha256: otherDigest) } == true)
    }

    @Test("an RSA key never gets a table")
    func rsaHasNone() throws {
        let key = try TestWorld.shared.get().leafKey.publicKey()
        #expect(P256KeyTable(key: key.handle) == nil)
        for _ in 0...PublicKey.es256TableAfter { _ = key.es256Table() }
        #expect(key.es256Table() == nil)
    }
}

@Suite("Checks that passed, remembered")
struct PassedChecksTests {
    @Test("a check is remembered by its digest and whole signature; past the capacity older checks are forgotten")
    func exactAndBounded() {
        let checks = PassedChecks()
        let digest = [UInt8](repeating: 7, count: 32)
        let signature = (0..<64).map { UInt8($0) }
        #expect(!checks.contains(signature: signature, sha256: digest))
        checks.remember(signature: signature, sha256: digest)
        #expect(checks.contains(signature: signature, sha256: digest))
        var other = signature
        other[63] ^= 1
        #expect(!checks.contains(signature: other, sha256: digest))
        // Another slot (byte 0); the same slot and tag, the digest's first 28 bits (byte 20),
        // and the same slot with another tag (byte 3): none of these digests passed.
        for (byte, bit) in [(0, UInt8(1)), (20, 1), (3, 0x80)] {
            var otherDigest = digest
            otherDigest[byte] ^= bit
            #expect(!checks.contains(signature: signature, sha256: otherDigest))
        }
        // Sizes other than a digest's and a raw signature's are never remembered.
        checks.remember(signature: Array(signature.prefix(63)), sha256: digest)
        #expect(!checks.contains(signature: Array(signature.prefix(63)), sha256: digest))
        for i in 0..<PassedChecks.capacity {
            var d = [UInt8](repeating: 0, count: 32)
            d[0] = UInt8(truncatingIfNeeded: i)
            d[1] = UInt8(truncatingIfNeeded: i >> 8)
            d[2] = 1
            checks.remember(signature: signature, sha256: d)
        }
        #expect(!checks.contains(signature: signature, sha256: digest))
    }
}
