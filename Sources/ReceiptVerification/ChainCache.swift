import StoreCrypto
import Synchronization

/// Chain checks already made, by the chain's certificates (leaf first), the marker policy
/// and the validity segment of the verify time: receipts repeat a handful of chains, so
/// only their signatures need checking each time. Shared by the worker threads.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        var certificates: [CertificateIdentity]
        var leafOID: String
        var segment: ValiditySegment
    }

    private let entries = Mutex<[Key: ChainCheck]>([:])
    /// Most checks kept; past it the cache starts over, so hostile inputs with endless
    /// distinct chains cannot grow it without bound.
    let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    func check(for key: Key, orMake make: () -> ChainCheck) -> ChainCheck {
        if let known = entries.withLock({ $0[key] }) { return known }
        let made = make()
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = made
        }
        return made
    }
}

/// A parsed certificate compared by identity. The certificate cache hands out one object
/// per distinct DER, so the same object means the same bytes; the key keeps it alive, so
/// its identity cannot be reused by another certificate.
struct CertificateIdentity: Hashable, Sendable {
    let certificate: X509Certificate

    static func == (a: CertificateIdentity, b: CertificateIdentity) -> Bool { a.certificate === b.certificate }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(certificate)) }
}
