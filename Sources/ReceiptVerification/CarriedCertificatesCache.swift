import StoreCrypto
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The certificates a receipt carries, parsed, by the exact bytes of the whole list.
/// Receipts repeat a handful of lists, so one lookup per receipt finds all of them; the
/// key's hash is computed once, outside the lock (hashing a `[UInt8]` element by element
/// would cost more than the signature check). Misses parse through
/// `CertificateCache`, so lists that share a certificate share its parsed object.
final class CarriedCertificatesCache: Sendable {
    private let entries = Mutex<[Key: [X509Certificate]]>([:])
    private let parsed = CertificateCache()
    /// Most lists kept; past it the cache starts over, so hostile inputs with endless
    /// distinct lists cannot grow it without bound.
    let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    func certificates(ders: [[UInt8]]) throws(CryptoError) -> [X509Certificate] {
        let key = Key(ders)
        if let known = entries.withLock({ $0[key] }) { return known }
        var made: [X509Certificate] = []
        made.reserveCapacity(ders.count)
        for der in ders { made.append(try parsed.certificate(der: der)) }
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = made
        }
        return made
    }

    /// A list of DER certificates, equal when byte for byte equal. The hash takes each
    /// certificate's length and last 32 bytes (inside its signature, so they differ between
    /// certificates); equality then compares every byte with `memcmp`.
    struct Key: Hashable, Sendable {
        let ders: [[UInt8]]
        private let digest: Int

        init(_ ders: [[UInt8]]) {
            self.ders = ders
            var hasher = Hasher()
            hasher.combine(ders.count)
            for der in ders {
                hasher.combine(der.count)
                der.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.suffix(32))) }
            }
            digest = hasher.finalize()
        }

        static func == (a: Key, b: Key) -> Bool {
            guard a.digest == b.digest, a.ders.count == b.ders.count else { return false }
            for (x, y) in zip(a.ders, b.ders) {
                guard x.count == y.count else { return false }
                let same = x.withUnsafeBytes { p in
                    y.withUnsafeBytes { q in
                        guard let pa = p.baseAddress, let qa = q.baseAddress else { return p.count == q.count }
                        return memcmp(pa, qa, p.count) == 0
                    }
                }
                guard same else { return false }
            }
            return true
        }

        func hash(into hasher: inout Hasher) { hasher.combine(digest) }
    }
}
