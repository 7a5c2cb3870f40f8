/// Numbers modulo n, the order of the P-256 group, for checking signatures: the inverse of s
/// and the products u1 = e/s, u2 = r/s of every ES256 check. OpenSSL's general BIGNUM code
/// (a Fermat inversion of some 300 Montgomery products, then two divisions) was about a fifth
/// of the time of a store event; a binary-GCD inversion (P256Scalar+Inverse.swift) and
/// four-limb Montgomery products do the same in less. Only public values pass through (signatures and digests), so nothing here
/// needs to take the same time for every input.
struct P256Scalar: Equatable {
    /// Little-endian 64-bit limbs.
    var l0, l1, l2, l3: UInt64

    static let n = P256Scalar(l0: nL0, l1: nL1, l2: nL2, l3: nL3)
    static let zero = P256Scalar(l0: 0, l1: 0, l2: 0, l3: 0)
    static let one = P256Scalar(l0: 1, l1: 0, l2: 0, l3: 0)

    /// −n⁻¹ mod 2⁶⁴, R mod n and R² mod n (R = 2²⁵⁶) for the Montgomery products, as literals
    /// so that the hot loop reads no lazily made globals; the tests derive each from n.
    static let nPrime: UInt64 = 0xCCD1_C8AA_EE00_BC4F
    static let rModN = P256Scalar(l0: 0x0C46_353D_039C_DAAF, l1: 0x4319_0552_58E8_617B, l2: 0, l3: 0xFFFF_FFFF)
    static let rSquared = P256Scalar(
        l0: 0x8324_4C95_BE79_EEA2, l1: 0x4699_799C_49BD_6FA6, l2: 0x2845_B239_2B6B_EC59,
        l3: 0x66E1_2D94_F3D9_5620)

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64) {
        (self.l0, self.l1, self.l2, self.l3) = (l0, l1, l2, l3)
    }

    /// 32 big-endian bytes; nil for any other length.
    init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        if let read = bytes.withContiguousStorageIfAvailable({ P256Scalar(bigEndian32: UnsafeRawBufferPointer($0)) }) {
            self = read
            return
        }
        var limbs = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        for (k, b) in bytes.enumerated() {
            switch k / 8 {
            case 0: limbs.3 = limbs.3 << 8 | UInt64(b)
            case 1: limbs.2 = limbs.2 << 8 | UInt64(b)
            case 2: limbs.1 = limbs.1 << 8 | UInt64(b)
            default: limbs.0 = limbs.0 << 8 | UInt64(b)
            }
        }
        self.init(l0: limbs.0, l1: limbs.1, l2: limbs.2, l3: limbs.3)
    }

    /// From exactly 32 big-endian bytes (the caller checked the count).
    private init(bigEndian32 b: UnsafeRawBufferPointer) {
        func word(_ at: Int) -> UInt64 { UInt64(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        self.init(l0: word(24), l1: word(16), l2: word(8), l3: word(0))
    }

    /// The 32 bytes little-endian, as a value to borrow (no array).
    var littleEndianWords: (UInt64, UInt64, UInt64, UInt64) {
        (l0.littleEndian, l1.littleEndian, l2.littleEndian, l3.littleEndian)
    }

    var bigEndianBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for limb in [l3, l2, l1, l0] {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: limb >> UInt64(shift)))
            }
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

    /// self·other·R⁻¹ mod n (R = 2²⁵⁶), both reduced: one Montgomery product, for callers that
    /// keep track of the powers of R themselves (`ES256Inverses`).
    func montgomeryProduct(_ other: P256Scalar) -> P256Scalar {
        P256Scalar.montgomery(self, other)
    }

    /// self − other, wrapping at 2²⁵⁶.
    @inline(__always)
    func wrappingSubtract(_ other: P256Scalar) -> P256Scalar {
        limbwise(other) { $0.subtractingReportingOverflow($1) }.value
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
    @inline(__always)
    private static func montgomery(_ a: P256Scalar, _ b: P256Scalar) -> P256Scalar {
        var t = step(a, b.l0, (0, 0, 0, 0, 0))
        t = step(a, b.l1, t)
        t = step(a, b.l2, t)
        t = step(a, b.l3, t)
        let r = P256Scalar(l0: t.0, l1: t.1, l2: t.2, l3: t.3)
        // Below 2n: one subtraction at most.
        return t.4 != 0 || !r.isReduced ? r.subtractingN() : r
    }

    /// (t + a·bi + m·n) / 2⁶⁴ for the m that makes the division exact.
    @inline(__always)
    private static func step(_ a: P256Scalar, _ bi: UInt64, _ t: (UInt64, UInt64, UInt64, UInt64, UInt64))
        -> (UInt64, UInt64, UInt64, UInt64, UInt64)
    {
        var c: UInt64 = 0
        let t0 = mulAdd(a.l0, bi, t.0, &c)
        let t1 = mulAdd(a.l1, bi, t.1, &c)
        let t2 = mulAdd(a.l2, bi, t.2, &c)
        let t3 = mulAdd(a.l3, bi, t.3, &c)
        let (t4, o) = t.4.addingReportingOverflow(c)
        let m = t0 &* nPrime
        c = 0
        _ = mulAdd(m, nL0, t0, &c)  // zero by the choice of m
        let r0 = mulAdd(m, nL1, t1, &c)
        let r1 = mulAdd(m, nL2, t2, &c)
        let r2 = mulAdd(m, nL3, t3, &c)
        let (r3, o2) = t4.addingReportingOverflow(c)
        return (r0, r1, r2, r3, (o ? 1 : 0) &+ (o2 ? 1 : 0))
    }

    private static let nL0: UInt64 = 0xF3B9_CAC2_FC63_2551
    private static let nL1: UInt64 = 0xBCE6_FAAD_A717_9E84
    private static let nL2: UInt64 = 0xFFFF_FFFF_FFFF_FFFF
    private static let nL3: UInt64 = 0xFFFF_FFFF_0000_0000

    /// (self + other) mod n, both reduced.
    func addedMod(_ other: P256Scalar) -> P256Scalar {
        let (sum, carried) = wrappingAdd(other)
        return carried || !sum.isReduced ? sum.subtractingN() : sum
    }

    /// self − n, wrapping at 2²⁵⁶: the same as adding 2²⁵⁶ − n.
    func subtractingN() -> P256Scalar { wrappingAdd(P256Scalar.rModN).sum }

    /// self + other, wrapping at 2²⁵⁶, and whether it carried out.
    @inline(__always)
    func wrappingAdd(_ other: P256Scalar) -> (sum: P256Scalar, carried: Bool) {
        let (sum, carried) = limbwise(other) { $0.addingReportingOverflow($1) }
        return (sum, carried)
    }

    /// `op` limb by limb from the lowest, its carry (or borrow) passed up; the last one out.
    @inline(__always)
    private func limbwise(_ other: P256Scalar, _ op: (UInt64, UInt64) -> (partialValue: UInt64, overflow: Bool))
        -> (value: P256Scalar, carry: Bool)
    {
        var carry = false
        @inline(__always) func limb(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (x, o1) = op(a, b)
            let (y, o2) = op(x, carry ? 1 : 0)
            carry = o1 || o2
            return y
        }
        let value = P256Scalar(
            l0: limb(l0, other.l0), l1: limb(l1, other.l1), l2: limb(l2, other.l2), l3: limb(l3, other.l3))
        return (value, carry)
    }

    /// Whether a ≥ b.
    @inline(__always)
    private static func notLess(_ a: P256Scalar, _ b: P256Scalar) -> Bool {
        if a.l3 != b.l3 { return a.l3 > b.l3 }
        if a.l2 != b.l2 { return a.l2 > b.l2 }
        if a.l1 != b.l1 { return a.l1 > b.l1 }
        return a.l0 >= b.l0
    }
}
