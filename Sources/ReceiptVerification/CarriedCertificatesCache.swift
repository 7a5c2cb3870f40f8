import StoreCrypto
import Synchronization

/// The certificates a receipt carries, parsed, by the exact bytes of the whole list.
/// Receipts repeat a handful of lists, so one lookup per receipt finds all of them; the
/// key's hash is computed once, outside the lock, over the raw bytes (hashing a `[UInt8]`
/// element by element would cost more than the signature check). Misses parse through
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

    /// A list of DER certificates, equal when byte for byte equal.
    struct Key: Hashable, Sendable {
        let ders: [[UInt8]]
        private let digest: Int

        init(_ ders: [[UInt8]]) {
            self.ders = ders
            var hasher = Hasher()
            hasher.combine(ders.count)
            for der in ders {
                hasher.combine(der.count)
                der.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            digest = hasher.finalize()
        }

        static func == (a: Key, b: Key) -> Bool { a.digest == b.digest && a.ders == b.ders }

        func hash(into hasher: inout Hasher) { hasher.combine(digest) }
    }
}
