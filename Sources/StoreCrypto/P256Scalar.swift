/// Numbers modulo n, the order of the P-256 group, for checking signatures: the inverse of s
/// and the products u1 = e/s, u2 = r/s of every ES256 check. OpenSSL's general BIGNUM code
/// spent about a fifth of the time of a store event here (a Fermat inversion is some 300
/// Montgomery products); four 64-bit limbs and a fixed window do the same in a fraction.
/// Only public values pass through (signatures and digests), so nothing here needs to take
/// the same time for every input.
struct P256Scalar: Equatable {
    /// Little-endian 64-bit limbs.
    var l0, l1, l2, l3: UInt64

    static let n = P256Scalar(l0: 0xF3B9_CAC2_FC63_2551, l1: 0xBCE6_FAAD_A717_9E84, l2: 0xFFFF_FFFF_FFFF_FFFF,
                              l3: 0xFFFF_FFFF_0000_0000)
    static let zero = P256Scalar(l0: 0, l1: 0, l2: 0, l3: 0)
    static let one = P256Scalar(l0: 1, l1: 0, l2: 0, l3: 0)

    /// −n⁻¹ mod 2⁶⁴, R mod n and R² mod n (R = 2²⁵⁶), as literals so that the hot loop reads
    /// no lazily made globals; the tests derive each from n.
    static let nPrime: UInt64 = 0xCCD1_C8AA_EE00_BC4F
    static let rModN = P256Scalar(l0: 0x0C46_353D_039C_DAAF, l1: 0x4319_0552_58E8_617B, l2: 0, l3: 0xFFFF_FFFF)
    static let rSquared = P256Scalar(l0: 0x8324_4C95_BE79_EEA2, l1: 0x4699_799C_49BD_6FA6, l2: 0x2845_B239_2B6B_EC59,
                                     l3: 0x66E1_2D94_F3D9_5620)

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64) {
        (self.l0, self.l1, self.l2, self.l3) = (l0, l1, l2, l3)
    }

    /// 32 big-endian bytes; nil for any other length.
    init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (k, b) in bytes.enumerated() {
            let limb = 3 - k / 8
            limbs[limb] = limbs[limb] << 8 | UInt64(b)
        }
        self.init(l0: limbs[0], l1: limbs[1], l2: limbs[2], l3: limbs[3])
    }

    var bigEndianBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for limb in [l3, l2, l1, l0] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift))) }
        }
        return out
    }

    var isZero: Bool { l0 | l1 | l2 | l3 == 0 }

    /// Whether self < n.
    var isReduced: Bool { !P256Scalar.notLess(self, P256Scalar.n) }

    /// self mod n, for a value below 2n (any 256-bit value is).
    var reduced: P256Scalar { isReduced ? self : subtractingN() }

    /// a·b mod n, both reduced.
    func multipliedMod(_ other: P256Scalar) -> P256Scalar {
        P256Scalar.montgomery(P256Scalar.montgomery(self, other), P256Scalar.rSquared)
    }

    /// self⁻¹ mod n (self reduced and not zero), as self^(n−2): n is prime. Four bits at a time.
    func inverse() -> P256Scalar {
        let base = P256Scalar.montgomery(self, P256Scalar.rSquared)
        return withUnsafeTemporaryAllocation(of: P256Scalar.self, capacity: 16) { table in
            // base^0 … base^15, in Montgomery form.
            table.initialize(repeating: P256Scalar.rModN)
            for k in 1..<16 { table[k] = P256Scalar.montgomery(table[k - 1], base) }
            var x = P256Scalar.rModN
            for word in 0..<4 {
                let n = P256Scalar.n
                let limb = word == 0 ? n.l3 : word == 1 ? n.l2 : word == 2 ? n.l1 : n.l0 &- 2
                var shift: UInt64 = 64
                while shift > 0 {
                    shift &-= 4
                    x = P256Scalar.montgomery(x, x)
                    x = P256Scalar.montgomery(x, x)
                    x = P256Scalar.montgomery(x, x)
                    x = P256Scalar.montgomery(x, x)
                    x = P256Scalar.montgomery(x, table[Int(truncatingIfNeeded: (limb >> shift) & 0xF)])
                }
            }
            return P256Scalar.montgomery(x, P256Scalar.one)
        }
    }

    // MARK: Limb arithmetic

    /// a·b + c + carry: the low word, the high word left in carry (it cannot overflow).
    @inline(__always)
    private static func mulAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
        let (hi, lo) = a.multipliedFullWidth(by: b)
        let (s1, o1) = lo.addingReportingOverflow(c)
        let (s2, o2) = s1.addingReportingOverflow(carry)
        carry = hi &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
        return s2
    }

    /// a·b·R⁻¹ mod n (both below n), coarsely integrated operand scanning.
    private static func montgomery(_ a: P256Scalar, _ b: P256Scalar) -> P256Scalar {
        var t: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        step(a, b.l0, &t)
        step(a, b.l1, &t)
        step(a, b.l2, &t)
        step(a, b.l3, &t)
        let r = P256Scalar(l0: t.0, l1: t.1, l2: t.2, l3: t.3)
        // Below 2n: one subtraction at most.
        return t.4 != 0 || !r.isReduced ? r.subtractingN() : r
    }

    /// t = (t + a·bi + m·n) / 2⁶⁴ for the m that makes the division exact.
    @inline(__always)
    private static func step(_ a: P256Scalar, _ bi: UInt64, _ t: inout (UInt64, UInt64, UInt64, UInt64, UInt64)) {
        var c: UInt64 = 0
        let t0 = mulAdd(a.l0, bi, t.0, &c)
        let t1 = mulAdd(a.l1, bi, t.1, &c)
        let t2 = mulAdd(a.l2, bi, t.2, &c)
        let t3 = mulAdd(a.l3, bi, t.3, &c)
        let (t4, o) = t.4.addingReportingOverflow(c)
        let m = t0 &* nPrime
        c = 0
        _ = mulAdd(m, n.l0, t0, &c)  // zero by the choice of m
        t.0 = mulAdd(m, n.l1, t1, &c)
        t.1 = mulAdd(m, n.l2, t2, &c)
        t.2 = mulAdd(m, n.l3, t3, &c)
        let (top, o2) = t4.addingReportingOverflow(c)
        t.3 = top
        t.4 = (o ? 1 : 0) &+ (o2 ? 1 : 0)
    }

    /// (self + other) mod n, both reduced.
    func addedMod(_ other: P256Scalar) -> P256Scalar {
        let (sum, carried) = wrappingAdd(other)
        return carried || !sum.isReduced ? sum.subtractingN() : sum
    }

    /// self − n, wrapping at 2²⁵⁶: the same as adding 2²⁵⁶ − n.
    func subtractingN() -> P256Scalar { wrappingAdd(P256Scalar.rModN).sum }

    /// self + other, wrapping at 2²⁵⁶, and whether it carried out.
    func wrappingAdd(_ other: P256Scalar) -> (sum: P256Scalar, carried: Bool) {
        let (s0, c0) = l0.addingReportingOverflow(other.l0)
        let (a1, c1a) = l1.addingReportingOverflow(other.l1)
        let (s1, c1b) = a1.addingReportingOverflow(c0 ? 1 : 0)
        let (a2, c2a) = l2.addingReportingOverflow(other.l2)
        let (s2, c2b) = a2.addingReportingOverflow(c1a || c1b ? 1 : 0)
        let (a3, c3a) = l3.addingReportingOverflow(other.l3)
        let (s3, c3b) = a3.addingReportingOverflow(c2a || c2b ? 1 : 0)
        return (P256Scalar(l0: s0, l1: s1, l2: s2, l3: s3), c3a || c3b)
    }

    /// Whether a ≥ b.
    private static func notLess(_ a: P256Scalar, _ b: P256Scalar) -> Bool {
        if a.l3 != b.l3 { return a.l3 > b.l3 }
        if a.l2 != b.l2 { return a.l2 > b.l2 }
        if a.l1 != b.l1 { return a.l1 > b.l1 }
        return a.l0 >= b.l0
    }
}
