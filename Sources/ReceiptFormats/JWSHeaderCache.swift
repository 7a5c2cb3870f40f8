import IAPBasics
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The JWS headers read last, as parsed: the App Store signs every JWS of a period with one
/// certificate chain, so nearly every header repeats byte for byte, and its three base64
/// certificates (most of a notification's bytes) need decoding once, not twice per event.
/// A hit is an exact match of the header's text under the same limits, so it parses as it
/// did; headers that failed are never kept.
final class JWSHeaderCache: Sendable {
    struct Parsed: Sendable {
        var algorithm: String?
        var keyID: String?
        var certificates: [[UInt8]]
    }

    static let shared = JWSHeaderCache()

    /// A few, newest first: a night may carry several chains (a renewal of Apple's leaf, a forger's).
    private static let capacity = 4
    /// Larger headers are parsed each time rather than kept.
    private static let maxHeaderBytes = 16 << 10
    /// A header kept: a reference, so that looking through the list copies no arrays.
    private final class Entry: Sendable {
        let text: [UInt8]
        let limits: Limits
        let parsed: Parsed

        init(text: [UInt8], limits: Limits, parsed: Parsed) {
            self.text = text
            self.limits = limits
            self.parsed = parsed
        }
    }

    private let entries = Mutex<[Entry]>([])

    /// The kept header that `text` starts with, followed by a dot, and what it parsed to.
    /// The header's bytes come back as the array kept (not a copy), for the JWS to hold.
    func lookUp(startOf text: UnsafeRawBufferPointer, limits: Limits) -> (text: [UInt8], parsed: Parsed)? {
        entries.withLock { list in
            for e in list where e.text.count < text.count && text[e.text.count] == 0x2E && e.limits == limits {
                let same = e.text.withUnsafeBytes { kept in
                    guard let a = kept.baseAddress, let b = text.baseAddress else { return kept.isEmpty }
                    return memcmp(a, b, kept.count) == 0
                }
                if same { return (e.text, e.parsed) }
            }
            return nil
        }
    }

    /// Keeps `text` itself (a header without a dot), which `lookUp` hands out from then on.
    func keep(_ text: [UInt8], limits: Limits, _ parsed: Parsed) {
        guard text.count <= Self.maxHeaderBytes else { return }
        let entry = Entry(text: text, limits: limits, parsed: parsed)
        entries.withLock { list in
            list.insert(entry, at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
    }
}
