import Synchronization

/// The last few thousand ES256 checks that passed with one key, each by its digest and its
/// whole signature. A store event logged twice (about one line in twenty in a server's
/// log, and the copy close behind the first), or one receipt sent with several orders, is
/// then checked once: the same key, digest and signature give the same answer, so
/// remembering it is no weaker than checking again. Failed checks are never remembered.
final class PassedChecks: Sendable {
    /// A check by its digest and its whole signature: a digest found with another signature
    /// is checked afresh.
    private struct Check: Equatable {
        var digest: (UInt64, UInt64, UInt64, UInt64)
        var signature: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        static func == (a: Check, b: Check) -> Bool {
            a.digest == b.digest && a.signature.0 == b.signature.0 && a.signature.1 == b.signature.1
                && a.signature.2 == b.signature.2 && a.signature.3 == b.signature.3
                && a.signature.4 == b.signature.4 && a.signature.5 == b.signature.5
                && a.signature.6 == b.signature.6 && a.signature.7 == b.signature.7
        }
    }

    /// Slots, each holding the last check whose digest's low bits name it: a SHA-256 digest
    /// is its own hash, so a lookup is one load and a comparison (a dictionary hashed its 32
    /// bytes again, twice a check). Bounded whatever a hostile input holds: 100 bytes a slot,
    /// allocated at the first check that passes.
    static let capacity = 4_096
    private let table = Mutex(Table())

    /// The slots, and beside them a tag of each slot's digest (16 more of its bits): 8 KB that
    /// stay in the cache, where the 400 KB of slots do not. Most checks are new, and a tag
    /// that differs answers them without the slot's cache miss (most of a lookup's time).
    private struct Table {
        var tags: [UInt16] = []
        var checks: [Check?] = []
    }

    /// Whether this exact check passed before.
    func contains(signature: [UInt8], sha256 digest: [UInt8]) -> Bool {
        guard let check = Self.check(signature, digest) else { return false }
        let (slot, tag) = Self.place(check)
        return table.withLock { t in
            // A tag is only a filter: the whole check is compared when it matches.
            guard !t.tags.isEmpty, t.tags[slot] == tag else { return false }
            return t.checks[slot] == check
        }
    }

    func remember(signature: [UInt8], sha256 digest: [UInt8]) {
        guard let check = Self.check(signature, digest) else { return }
        let (slot, tag) = Self.place(check)
        table.withLock { t in
            if t.tags.isEmpty {
                t.tags = [UInt16](repeating: 0, count: Self.capacity)
                t.checks = [Check?](repeating: nil, count: Self.capacity)
            }
            t.tags[slot] = tag
            t.checks[slot] = check
        }
    }

    /// The slot the digest's low bits name, and the tag its next 16 bits make.
    private static func place(_ check: Check) -> (slot: Int, tag: UInt16) {
        let low = check.digest.0
        return (Int(truncatingIfNeeded: low) & (capacity - 1), UInt16(truncatingIfNeeded: low >> 12))
    }

    private static func check(_ signature: [UInt8], _ digest: [UInt8]) -> Check? {
        guard digest.count == 32, signature.count == 64 else { return nil }
        let d = digest.withUnsafeBytes { b in (word(b, 0), word(b, 1), word(b, 2), word(b, 3)) }
        return signature.withUnsafeBytes { b in
            Check(
                digest: d,
                signature: (
                    word(b, 0), word(b, 1), word(b, 2), word(b, 3), word(b, 4), word(b, 5), word(b, 6), word(b, 7)
                ))
        }
    }

    private static func word(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt64 {
        b.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
    }
}
