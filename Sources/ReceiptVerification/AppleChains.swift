import IAPBasics
import StoreCrypto
import Synchronization

/// Apple's side of the trust: our anchors, and chain checks against them at a receipt's
/// signing time. With caching on, each distinct certificate is parsed once and each
/// distinct chain is checked once per validity segment; off, everything is done every time
/// (for comparison in benchmarks).
final class AppleChains: Sendable {
    private let store: TrustStore
    private let anchorCuts: [Int64]
    private let carried: CarriedCertificatesCache?
    private let chains: ChainCache?
    /// The chain checked last, with its verdict: consecutive receipts nearly always carry
    /// one chain, and matching it takes a few identity comparisons rather than a cache key.
    private let recent = Mutex<RecentCheck?>(nil)

    init(anchors: [X509Certificate], caching: Bool) throws(CryptoError) {
        store = try TrustStore(anchors: anchors)
        anchorCuts = anchors.flatMap(ValiditySegment.cuts(of:))
        carried = caching ? CarriedCertificatesCache() : nil
        chains = caching ? ChainCache() : nil
    }

    /// The certificates a receipt carries, parsed, in their order.
    func certificates(ders: [[UInt8]]) throws(CryptoError) -> [X509Certificate] {
        guard let carried else {
            return try ders.map { (der) throws(CryptoError) in try X509Certificate(der: der) }
        }
        return try carried.certificates(ders: ders)
    }

    /// Whether `leaf`, through `intermediates` (the receipt's other certificates, untrusted),
    /// reaches an anchor at `time` and carries the markers `policy` asks for.
    func check(
        leaf: X509Certificate, intermediates: [X509Certificate], policy: AppleMarkerPolicy,
        at time: Timestamp
    ) -> ChainCheck {
        guard let chains else { return verify(leaf: leaf, intermediates: intermediates, policy: policy, at: time) }
        let second = time.wholeSeconds
        if let known = recent.withLock({ $0?.answer(leaf, intermediates, policy.leafOID, second: second) }) {
            return known
        }
        let chain = [leaf] + intermediates
        let segment = ValiditySegment(containing: time, certificates: chain, anchorCuts: anchorCuts)
        let key = ChainCache.Key(
            certificates: chain.map(CertificateIdentity.init), leafOID: policy.leafOID,
            segment: segment)
        let check = chains.check(for: key) {
            verify(leaf: leaf, intermediates: intermediates, policy: policy, at: time)
        }
        let checked = RecentCheck(chain: chain, leafOID: policy.leafOID, segment: segment, check: check)
        recent.withLock { $0 = checked }
        return check
    }

    /// A chain check with what `ChainCache` keys it by.
    private struct RecentCheck: Sendable {
        let chain: [X509Certificate]
        let leafOID: String
        let segment: ValiditySegment
        let check: ChainCheck

        /// The check, when it is the one `ChainCache` keeps for these: the same certificate
        /// objects (one per distinct DER), the same marker, and a time in the same segment.
        func answer(
            _ leaf: X509Certificate, _ intermediates: [X509Certificate], _ leafOID: String, second: Int64
        ) -> ChainCheck? {
            guard chain.count == intermediates.count + 1, chain.first === leaf, self.leafOID == leafOID,
                segment.from <= second, second < segment.until
            else { return nil }
            for (kept, given) in zip(chain.dropFirst(), intermediates) where kept !== given { return nil }
            return check
        }
    }

    private func verify(
        leaf: X509Certificate, intermediates: [X509Certificate], policy: AppleMarkerPolicy,
        at time: Timestamp
    ) -> ChainCheck {
        do throws(CryptoError) {
            let verdict = try store.verify(leaf: leaf, intermediates: intermediates, at: time)
            return try ChainCheck(verdict: verdict, leaf: leaf, policy: policy)
        } catch {
            return .refused(reason: "chain cannot be checked: \(error.reason)")
        }
    }
}
