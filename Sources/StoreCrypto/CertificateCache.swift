import Synchronization

/// Parsed certificates by their exact DER bytes. Receipts repeat the same few chains,
/// and OpenSSL 3.0 spends a fraction of a millisecond decoding each certificate's public
/// key, more than verifying a signature with it; parse each distinct certificate once.
public final class CertificateCache: Sendable {
    private let entries = Mutex<[[UInt8]: X509Certificate]>([:])
    /// Most certificates kept; past it the cache starts over, so hostile inputs with
    /// endless distinct certificates cannot grow it without bound.
    public let capacity: Int

    public init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The certificate for `der`, parsed at most once while cached.
    public func certificate(der: [UInt8]) throws(CryptoError) -> X509Certificate {
        if let cached = entries.withLock({ $0[der] }) { return cached }
        let parsed = try X509Certificate(der: der)
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[der] = parsed
        }
        return parsed
    }
}
