import Synchronization

/// The last few thousand ES256 checks that passed with one key, each by its digest and its
/// whole signature. A store event logged twice (about one line in twenty in a server's
/// log, and the copy close behind the first), or one receipt sent with several orders, is
/// then checked once: the same key, digest and signature give the same answer, so
/// remembering it is no weaker than checking again. Failed checks are never remembered.
final class PassedChecks: Sendable {
    private struct Digest: Hashable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        static func == (a: Digest, b: Digest) -> Bool { a.words == b.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// A signature compared whole: a digest found with another signature is checked afresh.
    private struct Signature: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

        static func == (a: Signature, b: Signature) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
                && a.words.4 == b.words.4 && a.words.5 == b.words.5 && a.words.6 == b.words.6
                && a.words.7 == b.words.7
        }
    }

    /// Past this the memory starts over: bounded whatever a hostile input holds (about 100
    /// bytes a check).
    static let capacity = 4_096
    private let passed = Mutex<[Digest: Signature]>([:])

    /// Whether this exact check passed before.
    func contains(signature: [UInt8], sha256 digest: [UInt8]) -> Bool {
        guard let d = Self.digest(digest), let s = Self.signature(signature) else { return false }
        return passed.withLock { $0[d] == s }
    }

    func remember(signature: [UInt8], sha256 digest: [UInt8]) {
        guard let d = Self.digest(digest), let s = Self.signature(signature) else { return }
        passed.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[d] = s
        }
    }

    private static func digest(_ bytes: [UInt8]) -> Digest? {
        guard bytes.count == 32 else { return nil }
        return bytes.withUnsafeBytes { b in
            Digest(words: (word(b, 0), word(b, 1), word(b, 2), word(b, 3)))
        }
    }

    private static func signature(_ bytes: [UInt8]) -> Signature? {
        guard bytes.count == 64 else { return nil }
        return bytes.withUnsafeBytes { b in
            Signature(
                words: (
                    word(b, 0), word(b, 1), word(b, 2), word(b, 3), word(b, 4), word(b, 5), word(b, 6), word(b, 7)
                ))
        }
    }

    private static func word(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt64 {
        b.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
    }
}
