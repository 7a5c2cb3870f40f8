import IAPBasics
import StoreCrypto

/// The stretch of time around a verify time in which a chain's verdict cannot change.
///
/// OpenSSL judges a chain's validity in whole seconds, and only each certificate's
/// notBefore and notAfter make time matter. Cutting time at every such second and at the
/// second after it (so a boundary second, judged either way, stands alone) leaves segments
/// inside which every verify time gets the same answer: the cache keys a verdict by one.
/// The anchors count too: OpenSSL checks their validity as well.
struct ValiditySegment: Hashable, Sendable {
    /// Whole seconds since the epoch: the segment is `from ..< until`.
    var from: Int64
    var until: Int64

    /// The segment holding `time` for a chain of `certificates` under `anchorCuts`.
    init(containing time: Timestamp, certificates: [X509Certificate], anchorCuts: [Int64]) {
        let second = time.wholeSeconds
        var from = Int64.min
        var until = Int64.max
        func consider(_ cut: Int64) {
            if cut <= second {
                from = max(from, cut)
            } else {
                until = min(until, cut)
            }
        }
        for cut in anchorCuts { consider(cut) }
        for certificate in certificates {
            for cut in ValiditySegment.cuts(of: certificate) { consider(cut) }
        }
        self.from = from
        self.until = until
    }

    /// Where `certificate` can change a verdict: its first second of validity and the one
    /// after, its last second and the one after.
    static func cuts(of certificate: X509Certificate) -> [Int64] {
        // A `Timestamp` lies far inside `Int64` seconds: adding one cannot overflow.
        let notBefore = certificate.notBefore.wholeSeconds
        let notAfter = certificate.notAfter.wholeSeconds
        return [notBefore, notBefore + 1, notAfter, notAfter + 1]
    }
}
