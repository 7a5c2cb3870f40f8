import COpenSSL
import Synchronization

/// ES256 checks for a key that signs many receipts: every App Store JWS of a period is
/// signed by one leaf key. OpenSSL multiplies the curve's generator G from a precomputed
/// table, but the key's point Q from scratch on every check, which is most of its cost.
/// Here Q gets a table too: a copy of the P-256 group whose generator is Q, precomputed by
/// OpenSSL (about 150 KB). The check is then ECDSA's own (SEC 1 §4.1.4) with both products
/// read from tables: R = u1·G + u2·Q with u1 = e/s, u2 = r/s (mod n, `P256Scalar`); valid
/// when R is a finite point whose x mod n is r, compared in Jacobian coordinates.
///
/// `@unchecked Sendable`: both groups are only read after init (each check works in a
/// scratch BN_CTX and points of its own), as OpenSSL allows from several threads.
final class P256KeyTable: @unchecked Sendable {
    /// Tables built in this process; each costs memory and a few milliseconds to build.
    static let maxTables = 64

    private let curve: OpaquePointer
    private let keyGroup: OpaquePointer
    /// The field's prime p, and p - n: an x in [n, p) is r + n for an r below p - n.
    private let prime: OpaquePointer
    private let primeMinusOrder: OpaquePointer
    /// Checks of this key that passed, answered again without the curve arithmetic.
    private let passed = PassedChecks()

    /// Nil when the key is not a P-256 point OpenSSL accepts.
    init?(key: OpaquePointer) {
        guard let curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        guard let keyGroup = P256KeyTable.groupGenerated(by: key, on: curve) else {
            OpenSSLErrorQueue.clear()
            EC_GROUP_free(curve)
            return nil
        }
        guard let prime = BN_new() else {
            EC_GROUP_free(keyGroup)
            EC_GROUP_free(curve)
            return nil
        }
        guard let primeMinusOrder = BN_new(), let order = EC_GROUP_get0_order(curve),
            EC_GROUP_get_curve(curve, prime, nil, nil, nil) == 1, BN_sub(primeMinusOrder, prime, order) == 1
        else {
            OpenSSLErrorQueue.clear()
            BN_free(prime)
            EC_GROUP_free(keyGroup)
            EC_GROUP_free(curve)
            return nil
        }
        self.curve = curve
        self.keyGroup = keyGroup
        self.prime = prime
        self.primeMinusOrder = primeMinusOrder
    }

    deinit {
        // The scratch points go before the groups they were made on.
        idle.withLock { $0.removeAll() }
        BN_free(primeMinusOrder)
        BN_free(prime)
        EC_GROUP_free(keyGroup)
        EC_GROUP_free(curve)
    }

    /// A copy of `curve` whose generator is the key's point, with its table of multiples.
    private static func groupGenerated(by key: OpaquePointer, on curve: OpaquePointer) -> OpaquePointer? {
        var encoded = [UInt8](repeating: 0, count: 133)
        var length = 0
        let read = encoded.withUnsafeMutableBufferPointer {
            // OSSL_PKEY_PARAM_PUB_KEY: the encoded point.
            EVP_PKEY_get_octet_string_param(key, "pub", $0.baseAddress, $0.count, &length)
        }
        guard read == 1, length > 0, length <= encoded.count, let ctx = BN_CTX_new() else { return nil }
        defer { BN_CTX_free(ctx) }
        guard let point = EC_POINT_new(curve) else { return nil }
        defer { EC_POINT_free(point) }
        guard EC_POINT_oct2point(curve, point, encoded, length, ctx) == 1,
            EC_POINT_is_on_curve(curve, point, ctx) == 1, EC_POINT_is_at_infinity(curve, point) == 0,
            let order = EC_GROUP_get0_order(curve), let cofactor = EC_GROUP_get0_cofactor(curve),
            let group = EC_GROUP_dup(curve)
        else { return nil }
        guard EC_GROUP_set_generator(group, point, order, cofactor) == 1,
            EC_GROUP_precompute_mult(group, ctx) == 1
        else {
            EC_GROUP_free(group)
            return nil
        }
        return group
    }

    /// Whether the raw `r ‖ s` signature is the key's over a SHA-256 `digest`; nil when
    /// OpenSSL failed (out of memory), so that the caller can tell that from a bad signature.
    func verify(raw signature: [UInt8], sha256 digest: [UInt8]) -> Bool? {
        if passed.contains(signature: signature, sha256: digest) { return true }
        let verdict = check(raw: signature, sha256: digest)
        if verdict == true { passed.remember(signature: signature, sha256: digest) }
        return verdict
    }

    private func check(raw signature: [UInt8], sha256 digest: [UInt8]) -> Bool? {
        guard signature.count == 64, digest.count == 32,
            let r = P256Scalar(bigEndian: signature[0..<32]), let s = P256Scalar(bigEndian: signature[32..<64]),
            let e = P256Scalar(bigEndian: digest)
        else { return false }
        // r and s in [1, n-1]; a 256-bit digest is used whole (n has 256 bits), reduced mod n.
        guard !r.isZero, !s.isZero, r.isReduced, s.isReduced else { return false }
        // Computed with the rest of its batch when a worker prepared one (`ES256Inverses`).
        let batch = ES256Inverses.current
        let w = batch?.inverse(of: s) ?? s.inverse()
        let u1 = e.reduced.multipliedMod(w)
        let u2 = r.multipliedMod(w)
        // A worker's batch holds one scratch of this table for all its checks.
        let lent = batch?.scratch(of: self)
        guard let scratch = lent ?? takeScratch() else { return nil }
        defer { if lent == nil { giveBack(scratch) } }
        let ctx = scratch.context
        BN_CTX_start(ctx)
        defer { BN_CTX_end(ctx) }
        guard let bnU1 = BN_CTX_get(ctx), let bnU2 = BN_CTX_get(ctx), let x = BN_CTX_get(ctx),
            let z = BN_CTX_get(ctx), let expected = BN_CTX_get(ctx), let bnR = BN_CTX_get(ctx),
            Self.load(u1, into: bnU1), Self.load(u2, into: bnU2), Self.load(r, into: bnR)
        else { return nil }
        let (sum, keyPart) = (scratch.sum, scratch.keyPart)
        guard EC_POINT_mul(curve, sum, bnU1, nil, nil, ctx) == 1,
            EC_POINT_mul(keyGroup, keyPart, bnU2, nil, nil, ctx) == 1,
            EC_POINT_add(curve, sum, sum, keyPart, ctx) == 1
        else { return nil }
        guard EC_POINT_is_at_infinity(curve, sum) == 0 else { return false }
        // R's affine x is X/Z² (Jacobian), and x mod n = r means x = r or x = r + n (x < p).
        // Comparing X with r·Z² and (r + n)·Z² spares the inversion of Z that affine x takes.
        guard EC_POINT_get_Jprojective_coordinates_GFp(curve, sum, x, nil, z, ctx) == 1,
            BN_mod_sqr(z, z, prime, ctx) == 1, BN_mod_mul(expected, bnR, z, prime, ctx) == 1
        else { return nil }
        if BN_cmp(expected, x) == 0 { return true }
        guard BN_cmp(bnR, primeMinusOrder) < 0 else { return false }
        guard let n = EC_GROUP_get0_order(curve), BN_add(bnR, bnR, n) == 1,
            BN_mod_mul(expected, bnR, z, prime, ctx) == 1
        else { return nil }
        return BN_cmp(expected, x) == 0
    }

    /// A scalar into a BIGNUM, from its limbs' bytes (no array on the way).
    private static func load(_ scalar: P256Scalar, into number: OpaquePointer) -> Bool {
        var words = scalar.littleEndianWords
        return withUnsafeBytes(of: &words) { bytes in
            BN_lebin2bn(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 32, number) != nil
        }
    }

    // MARK: Scratch

    /// What one check works in: a BN_CTX and the two points, kept for the next check (each
    /// made anew was a dozen allocations a check). Used by one thread at a time.
    final class Scratch: @unchecked Sendable {
        let context: OpaquePointer
        let sum: OpaquePointer
        let keyPart: OpaquePointer

        init?(curve: OpaquePointer, keyGroup: OpaquePointer) {
            guard let context = BN_CTX_new() else { return nil }
            guard let sum = EC_POINT_new(curve) else {
                BN_CTX_free(context)
                return nil
            }
            guard let keyPart = EC_POINT_new(keyGroup) else {
                EC_POINT_free(sum)
                BN_CTX_free(context)
                return nil
            }
            (self.context, self.sum, self.keyPart) = (context, sum, keyPart)
        }

        deinit {
            EC_POINT_free(keyPart)
            EC_POINT_free(sum)
            BN_CTX_free(context)
        }
    }

    /// Scratches not in use; at most as many are kept as there are checks at once.
    private let idle = Mutex<[Scratch]>([])
    private static let maxIdle = 16

    func takeScratch() -> Scratch? {
        if let kept = idle.withLock({ $0.popLast() }) { return kept }
        return Scratch(curve: curve, keyGroup: keyGroup)
    }

    func giveBack(_ scratch: Scratch) {
        idle.withLock { kept in
            if kept.count < Self.maxIdle { kept.append(scratch) }
        }
    }
}
