#if canImport(Glibc)
    import Glibc
#endif

/// The inverses s⁻¹ mod n of many ES256 signatures, computed together before they are
/// checked. Every check needs one (`P256KeyTable`), and an inversion alone costs as much as
/// some eighty products mod n; Montgomery's trick inverts a whole batch with one inversion and
/// three Montgomery products a signature. A worker that has decoded a batch of receipts hands their
/// signatures here and checks them as usual inside `whileChecking`: each check on this
/// thread finds its inverse ready, and a signature not in the batch gets its own. The batch
/// also lends its checks the scratch space of each key table they use (`scratch(of:)`).
///
/// Not `Sendable`: made, used and dropped on one thread.
public final class ES256Inverses {
    // `@exclusivity(unchecked)`: only this object's own methods touch it, never two accesses
    // at once; the run-time check was a thread-local lookup at every use (swift_beginAccess).
    @exclusivity(unchecked) private var scalars: [P256Scalar] = []
    @exclusivity(unchecked) private var inverses: [P256Scalar] = []
    /// Where the next lookup starts: the checks mostly come in the order the signatures did.
    @exclusivity(unchecked) private var next = 0
    /// The scratch of each key table this batch checked with, taken once a batch: taking
    /// and giving back at every check was two turns of a lock both workers share.
    @exclusivity(unchecked) private var scratches: [(table: P256KeyTable, scratch: P256KeyTable.Scratch)] = []

    /// `signatures`: raw `r ‖ s`; any that is not 64 bytes with s in [1, n-1] is left out.
    public init(signatures: some Sequence<[UInt8]>) {
        for signature in signatures where signature.count == 64 {
            guard let s = P256Scalar(bigEndian: signature[32..<64]), !s.isZero, s.isReduced else { continue }
            scalars.append(s)
        }
        guard !scalars.isEmpty else { return }
        // With m(a, b) = a·b·R⁻¹ (one Montgomery product): prefix[0] = s₀ and prefix[i] =
        // m(prefix[i-1], sᵢ). One inversion of the last; then, going down, `rest` is always
        // prefix[i]⁻¹, so m(rest, prefix[i-1]) = sᵢ⁻¹ and m(rest, sᵢ) = prefix[i-1]⁻¹: the
        // powers of R cancel. (n is prime and no s is 0, so no product is 0.)
        var prefix: [P256Scalar] = []
        prefix.reserveCapacity(scalars.count)
        for s in scalars { prefix.append(prefix.last.map { $0.montgomeryProduct(s) } ?? s) }
        var rest = prefix[prefix.count - 1].inverse()
        inverses = [P256Scalar](repeating: .zero, count: scalars.count)
        for i in scalars.indices.reversed() {
            guard i > 0 else {
                inverses[0] = rest
                break
            }
            inverses[i] = rest.montgomeryProduct(prefix[i - 1])
            rest = rest.montgomeryProduct(scalars[i])
        }
    }

    /// Runs `body` with these inverses at hand for the ES256 checks it makes on this thread.
    public func whileChecking<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        guard let key = Self.key else { return try body() }
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
        defer {
            pthread_setspecific(key, outer)
            withExtendedLifetime(self) {}
        }
        return try body()
    }

    /// The batch the current thread is checking, if any.
    static var current: ES256Inverses? {
        guard let key, let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<ES256Inverses>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// s⁻¹ when s is one of the batch's.
    func inverse(of s: P256Scalar) -> P256Scalar? {
        if next < scalars.count, scalars[next] == s {
            next += 1
            return inverses[next - 1]
        }
        guard let i = scalars.firstIndex(of: s) else { return nil }
        next = i + 1
        return inverses[i]
    }

    /// `table`'s scratch for this batch's checks; nil when none can be made.
    func scratch(of table: P256KeyTable) -> P256KeyTable.Scratch? {
        for held in scratches where held.table === table { return held.scratch }
        guard let scratch = table.takeScratch() else { return nil }
        scratches.append((table, scratch))
        return scratch
    }

    deinit {
        for held in scratches { held.table.giveBack(held.scratch) }
    }

    /// One key for the process; nil when the system has none left (then nothing is batched).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()
}
