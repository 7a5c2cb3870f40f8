import StoreCrypto
import Testing

@Suite("Digests")
struct DigestTests {
    let abc = Array("abc".utf8)

    @Test("SHA-1 and SHA-256 of \"abc\" match the FIPS 180 examples")
    func knownAnswers() throws {
        #expect(Digest.hex(try Digest.sha1(abc)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(
            Digest.hex(try Digest.sha256(abc))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("an empty input file has the well-known empty SHA-256")
    func emptyInput() throws {
        let hasher = try SHA256Hasher()
        #expect(try hasher.finalizeHex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("a file hashed in chunks gets the same SHA-256 as hashed at once")
    func streamingMatchesOneShot() throws {
        let data = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let hasher = try SHA256Hasher()
        var start = 0
        for size in [1, 0, 63, 64, 65, 4096, 30_000] {
            try data[start..<(start + size)].withUnsafeBytes { try hasher.update($0) }
            start += size
        }
        try hasher.update(Array(data[start...]))
        #expect(try hasher.finalizeHex() == Digest.hex(try Digest.sha256(data)))
    }

    @Test("a hasher starts over after giving its digest, so the next file is not mixed in")
    func hasherRestarts() throws {
        let hasher = try SHA256Hasher()
        try hasher.update(Array("first file".utf8))
        _ = try hasher.finalize()
        try hasher.update(abc)
        #expect(try hasher.finalize() == (try Digest.sha256(abc)))
    }

    @Test("digest OIDs as PKCS#7 names them map to SHA-1 and SHA-256, others to nothing")
    func digestOIDs() {
        #expect(DigestAlgorithm(oid: "1.3.14.3.2.26") == .sha1)
        #expect(DigestAlgorithm(oid: "2.16.840.1.101.3.4.2.1") == .sha256)
        #expect(DigestAlgorithm(oid: "2.16.840.1.101.3.4.2.3") == nil)
    }
}
