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

    /// SHA-256 of `data`, whose first `prefixLength` bytes are likely to repeat.
    func digest(_ data: [UInt8], prefixLength: Int) throws(CryptoError) -> [UInt8] {
        guard prefixLength >= Self.minPrefixBytes, prefixLength <= min(data.count, Self.maxPrefixBytes) else {
            return try Digest.sha256(data)
        }
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a digest context")
        }
        defer { EVP_MD_CTX_free(context) }
        let result: Result<[UInt8], CryptoError> = data.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in
                let prefix = UnsafeRawBufferPointer(rebasing: bytes[0..<prefixLength])
                if !copyState(after: prefix, into: context) {
                    try start(context, prefix)
                    keep(prefix, from: context)
                }
                let rest = UnsafeRawBufferPointer(rebasing: bytes[prefixLength...])
                guard rest.isEmpty || EVP_DigestUpdate(context, rest.baseAddress, rest.count) == 1 else {
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

    /// Copies the state after `prefix` into `context` when a kept prefix is the same bytes.
    private func copyState(after prefix: UnsafeRawBufferPointer, into context: OpaquePointer) -> Bool {
        entries.withLock { list in
            for e in list where e.prefix.count == prefix.count {
                let same = e.prefix.withUnsafeBytes { kept in
                    guard let a = kept.baseAddress, let b = prefix.baseAddress else { return kept.isEmpty }
                    return memcmp(a, b, prefix.count) == 0
                }
                // Copied under the lock: an entry pushed out is freed only once no copy reads it.
                if same { return EVP_MD_CTX_copy_ex(context, e.state) == 1 }
            }
            return false
        }
    }

    private func start(_ context: OpaquePointer, _ prefix: UnsafeRawBufferPointer) throws(CryptoError) {
        guard EVP_DigestInit_ex(context, DigestAlgorithm.sha256.evpMD, nil) == 1,
            EVP_DigestUpdate(context, prefix.baseAddress, prefix.count) == 1
        else {
            throw CryptoError.openSSL(.operationFailed, "cannot start a SHA-256 digest")
        }
    }

    /// Keeps a copy of the state after `prefix` (nothing when OpenSSL cannot copy it).
    private func keep(_ prefix: UnsafeRawBufferPointer, from context: OpaquePointer) {
        guard let state = EVP_MD_CTX_new() else { return }
        guard EVP_MD_CTX_copy_ex(state, context) == 1 else {
            EVP_MD_CTX_free(state)
            return
        }
        let entry = Entry(prefix: Array(prefix), state: state)
        entries.withLock { list in
            // Another thread may have kept the same prefix meanwhile.
            guard !list.contains(where: { $0.prefix == entry.prefix }) else { return }
            list.insert(entry, at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
    }
}
