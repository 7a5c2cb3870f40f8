import COpenSSL
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SHA-256 of JWS signing inputs that start with a header hashed before. The App Store signs
/// every JWS of a period with one certificate chain, carried whole in every header, so the
/// header is about half of the bytes every ES256 check hashes (twice per notification: the
/// notification and its transaction). The state after a header's bytes is kept and copied;
/// only the rest is hashed. The digest is SHA-256 of all the bytes, as without the cache.
final class SHA256PrefixCache: Sendable {
    static let shared = SHA256PrefixCache()

    /// A few, newest first (a night may carry a renewed chain, a forger's).
    private static let capacity = 4
    /// Shorter prefixes are not worth a copy of the state; longer ones are not kept.
    private static let minPrefixBytes = 512
    private static let maxPrefixBytes = 16 << 10

    /// A prefix and the digest state after it; the state is only read (copied) once kept.
    private final class Entry: @unchecked Sendable {
        let prefix: [UInt8]
        let state: OpaquePointer

        init(prefix: [UInt8], state: OpaquePointer) {
            self.prefix = prefix
            self.state = state
        }

        deinit { EVP_MD_CTX_free(state) }
    }

    private let entries = Mutex<[Entry]>([])

    /// SHA-256 of `prefix` followed by `rest`, where `prefix` is likely to repeat: often as
    /// the very array kept here (the JWS header cache hands out the header it kept), which is
    /// then known to be the same bytes without comparing them.
    func digest(_ prefix: [UInt8], then rest: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a digest context")
        }
        defer { EVP_MD_CTX_free(context) }
        if prefix.count >= Self.minPrefixBytes, prefix.count <= Self.maxPrefixBytes {
            if !copyState(after: prefix, into: context) {
                try start(context, prefix)
                keep(prefix, from: context)
            }
        } else {
            try start(context, prefix)
        }
        let result: Result<[UInt8], CryptoError> = rest.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in
                guard bytes.isEmpty || EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
                    throw CryptoError.openSSL(.operationFailed, "SHA-256 update failed")
                }
                var digest = [UInt8](repeating: 0, count: 32)
                var length: UInt32 = 0
                let ok = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
                guard ok == 1, length == 32 else {
                    throw CryptoError.openSSL(.operationFailed, "SHA-256 finalisation failed")
                }
                return digest
            }
        }
        return try result.get()
    }

    /// Copies the state after `prefix` into `context` when a kept prefix is the same bytes: the
    /// same array (its storage is kept here, so nothing can have changed it), or equal ones.
    private func copyState(after prefix: [UInt8], into context: OpaquePointer) -> Bool {
        prefix.withUnsafeBytes { wanted in
            entries.withLock { list in
                for e in list where e.prefix.count == wanted.count {
                    let same = e.prefix.withUnsafeBytes { kept in
                        guard let a = kept.baseAddress, let b = wanted.baseAddress else { return kept.isEmpty }
                        return a == b || memcmp(a, b, wanted.count) == 0
                    }
                    // Copied under the lock: an entry pushed out is freed only once no copy reads it.
                    if same { return EVP_MD_CTX_copy_ex(context, e.state) == 1 }
                }
                return false
            }
        }
    }

    private func start(_ context: OpaquePointer, _ prefix: [UInt8]) throws(CryptoError) {
        let ok = prefix.withUnsafeBytes { bytes in
            EVP_DigestInit_ex(context, DigestAlgorithm.sha256.evpMD, nil) == 1
                && (bytes.isEmpty || EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1)
        }
        guard ok else {
            throw CryptoError.openSSL(.operationFailed, "cannot start a SHA-256 digest")
        }
    }

    /// Keeps a copy of the state after `prefix`, and `prefix` itself: not a copy of it, so that
    /// the array handed out again is found by its address (nothing when OpenSSL cannot copy).
    private func keep(_ prefix: [UInt8], from context: OpaquePointer) {
        guard let state = EVP_MD_CTX_new() else { return }
        guard EVP_MD_CTX_copy_ex(state, context) == 1 else {
            EVP_MD_CTX_free(state)
            return
        }
        let entry = Entry(prefix: prefix, state: state)
        entries.withLock { list in
            // Another thread may have kept the same prefix meanwhile.
            guard !list.contains(where: { $0.prefix == entry.prefix }) else { return }
            list.insert(entry, at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
    }
}
