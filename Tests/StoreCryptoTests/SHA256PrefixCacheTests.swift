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
                    let data = start + tail
                    #expect(
                        try cache.digest(data, prefixLength: prefixLength) == Digest.sha256(data),
                        "prefix \(prefixLength), tail \(tailLength)")
                }
            }
        }
    }

    @Test("a prefix length beyond the bytes, zero or negative is a plain digest")
    func oddLengths() throws {
        let cache = SHA256PrefixCache()
        let data = Self.bytes(2_000, seed: 9)
        for length in [-1, 0, 2_001, Int.max] {
            #expect(try cache.digest(data, prefixLength: length) == Digest.sha256(data))
        }
    }

    @Test("more prefixes than it keeps, in turn and from many tasks at once")
    func manyPrefixes() async throws {
        let cache = SHA256PrefixCache()
        let inputs = (0..<12).map { Self.bytes(1_500, seed: 100 + UInt64($0 % 6)) + Self.bytes(100, seed: UInt64($0)) }
        let expected = try inputs.map { try Digest.sha256($0) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<8 {
                group.addTask {
                    for (k, data) in inputs.enumerated() where (k + round) % 2 == 0 || round > 3 {
                        guard try cache.digest(data, prefixLength: 1_500) == expected[k] else { return false }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }
}
