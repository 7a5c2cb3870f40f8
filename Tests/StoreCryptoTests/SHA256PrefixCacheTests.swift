import IAPBasics
import Testing

@testable import StoreCrypto

/// Digests through the kept states of repeated prefixes must be SHA-256 of the whole bytes,
/// whatever the prefix, its length and what follows it.
@Suite("SHA-256 of inputs whose start repeats")
struct SHA256PrefixCacheTests {
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test(
        "the same digests as one pass over the bytes: prefixes of every length around a block, other tails, other prefixes of the same length"
    )
    func sameDigests() throws {
        let cache = SHA256PrefixCache()
        for prefixLength in [511, 512, 513, 575, 576, 577, 640, 4_000, 16 << 10, (16 << 10) + 1] {
            let prefix = Self.bytes(prefixLength, seed: UInt64(prefixLength))
            let other = Self.bytes(prefixLength, seed: UInt64(prefixLength) + 1)
            for (k, tailLength) in [0, 1, 63, 64, 65, 3_000].enumerated() {
                let tail = Self.bytes(tailLength, seed: UInt64(k))
                for start in [prefix, other, prefix] {
                    #expect(
                        try cache.digest(start, then: tail) == Digest.sha256(start + tail),
                        "prefix \(prefixLength), tail \(tailLength)")
                }
            }
        }
    }

    @Test("an empty prefix, an empty rest or both: a plain digest")
    func emptyParts() throws {
        let cache = SHA256PrefixCache()
        let data = Self.bytes(2_000, seed: 9)
        #expect(try cache.digest([], then: data) == Digest.sha256(data))
        #expect(try cache.digest(data, then: []) == Digest.sha256(data))
        #expect(try cache.digest([], then: []) == Digest.sha256([]))
    }

    @Test("the prefix kept, handed in again, and a changed copy of it: each hashed as it reads now")
    func keptArray() throws {
        let cache = SHA256PrefixCache()
        let header = Self.bytes(3_000, seed: 11)
        let rest = Self.bytes(500, seed: 12)
        #expect(try cache.digest(header, then: rest) == Digest.sha256(header + rest))
        // The same array (the cache holds its storage): known without a comparison.
        #expect(try cache.digest(header, then: rest) == Digest.sha256(header + rest))
        // A copy changed in one byte gets storage of its own, and its own digest.
        var changed = header
        changed[1_000] ^= 1
        #expect(try cache.digest(changed, then: rest) == Digest.sha256(changed + rest))
        #expect(try cache.digest(header, then: rest) == Digest.sha256(header + rest))
    }

    @Test("more prefixes than it keeps, in turn and from many tasks at once")
    func manyPrefixes() async throws {
        let cache = SHA256PrefixCache()
        let inputs = (0..<12).map { (Self.bytes(1_500, seed: 100 + UInt64($0 % 6)), Self.bytes(100, seed: UInt64($0))) }
        let expected = try inputs.map { try Digest.sha256($0.0 + $0.1) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<8 {
                group.addTask {
                    for (k, (prefix, rest)) in inputs.enumerated() where (k + round) % 2 == 0 || round > 3 {
                        guard try cache.digest(prefix, then: rest) == expected[k] else { return false }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }
}
