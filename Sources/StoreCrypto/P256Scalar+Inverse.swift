extension P256Scalar {
    /// self⁻¹ mod n (zero for zero), by Pornin's optimised binary GCD ("Optimized Binary GCD
    /// for Modular Inversion", 2020): 31 steps of the binary GCD at a time run on 64-bit
    /// approximations of a and b (their top 33 and low 31 bits), and what they did — a matrix
    /// of small signed factors — is then applied once to the full values and to the
    /// coefficients u, v, each divided by 2³¹ (exactly for a, b; by a Montgomery step mod n
    /// for u, v). Invariants: a ≡ u·self and b ≡ v·self (mod n); 17 rounds (527 ≥ 2·256 − 1
    /// steps) bring a to 0 and b to gcd(self, n). Its time depends on self, public here.
    func inverse() -> P256Scalar {
        var a = self
        var b = P256Scalar.n
        var u = P256Scalar.one
        var v = P256Scalar.zero
        for _ in 0..<17 {
            let length = max(a.bitLength, b.bitLength, 64)
            var x = a.approximation(length)
            var y = b.approximation(length)
            // b stays odd (it starts as n and is only ever swapped with an odd a), so y is odd.
            // Without branches (the steps' choices are as good as random, and a wrong guess
            // costs more than the step): masks of all ones or zeros pick what each step does.
            var f0: UInt64 = 1
            var g0: UInt64 = 0
            var f1: UInt64 = 0
            var g1: UInt64 = 1
            // A step halves x; when x is odd it first becomes x - y (after a swap if x < y),
            // which leaves it even. The halvings of a row of even steps are done at once (the
            // values are public): f1, g1 double with each, f0, g0 stay. The swap is by masks
            // (its choice is as good as random, and a wrong guess costs more than the swap).
            var steps = min(x.trailingZeroBitCount, 31)
            x >>= UInt64(steps)
            f1 <<= UInt64(steps)
            g1 <<= UInt64(steps)
            while steps < 31 {
                let swaps = 0 &- UInt64(x < y ? 1 : 0)
                let dx = (x ^ y) & swaps
                let df = (f0 ^ f1) & swaps
                let dg = (g0 ^ g1) & swaps
                x ^= dx
                y ^= dx
                f0 ^= df
                f1 ^= df
                g0 ^= dg
                g1 ^= dg
                x &-= y
                f0 &-= f1
                g0 &-= g1
                let halvings = min(x.trailingZeroBitCount, 31 - steps)
                x >>= UInt64(halvings)
                f1 <<= UInt64(halvings)
                g1 <<= UInt64(halvings)
                steps += halvings
            }
            var (f0s, g0s, f1s, g1s) = (
                Int64(bitPattern: f0), Int64(bitPattern: g0), Int64(bitPattern: f1), Int64(bitPattern: g1)
            )
            var newA = (SignedWide(a, times: f0s) + SignedWide(b, times: g0s)).dividedBy2To31
            var newB = (SignedWide(a, times: f1s) + SignedWide(b, times: g1s)).dividedBy2To31
            if newA.isNegative {
                newA = newA.negated
                (f0s, g0s) = (-f0s, -g0s)
            }
            if newB.isNegative {
                newB = newB.negated
                (f1s, g1s) = (-f1s, -g1s)
            }
            (a, b) = (newA.low256, newB.low256)
            (u, v) = (
                (SignedWide(u, times: f0s) + SignedWide(v, times: g0s)).montgomeryDividedBy2To31,
                (SignedWide(u, times: f1s) + SignedWide(v, times: g1s)).montgomeryDividedBy2To31
            )
        }
        return b == .one ? v : .zero
    }

    /// The number of bits up to the highest one (0 for zero).
    @inline(__always)
    var bitLength: Int {
        if l3 != 0 { return 256 - l3.leadingZeroBitCount }
        if l2 != 0 { return 192 - l2.leadingZeroBitCount }
        if l1 != 0 { return 128 - l1.leadingZeroBitCount }
        return 64 - l0.leadingZeroBitCount
    }

    /// The low 31 bits, and above them the 33 bits below bit `length` (self < 2^length,
    /// length ≥ 64): self itself when it fits in 64 bits.
    @inline(__always)
    private func approximation(_ length: Int) -> UInt64 {
        let top = bits(from: length - 33) & (1 << 33 - 1)
        return l0 & (1 << 31 - 1) | top << 31
    }

    /// The 64 bits from bit `start` up (zeros above bit 255).
    @inline(__always)
    private func bits(from start: Int) -> UInt64 {
        func limb(_ k: Int) -> UInt64 {
            switch k {
            case 0: l0
            case 1: l1
            case 2: l2
            case 3: l3
            default: 0
            }
        }
        let k = start / 64
        let shift = start % 64
        guard shift > 0 else { return limb(k) }
        return limb(k) >> UInt64(shift) | limb(k + 1) << UInt64(64 - shift)
    }
}

/// A signed number of 320 bits in two's complement: the sums a·f + b·g of the inversion,
/// with a, b below 2²⁵⁶ and |f|, |g| ≤ 2³², stay within 2²⁹⁰ in size.
private struct SignedWide {
    var l0, l1, l2, l3, l4: UInt64

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    /// a·f.
    @inline(__always)
    init(_ a: P256Scalar, times f: Int64) {
        let m = f.magnitude
        var carry: UInt64 = 0
        func limb(_ x: UInt64) -> UInt64 {
            let (hi, lo) = x.multipliedFullWidth(by: m)
            let (sum, o) = lo.addingReportingOverflow(carry)
            carry = hi &+ (o ? 1 : 0)
            return sum
        }
        let product = SignedWide(l0: limb(a.l0), l1: limb(a.l1), l2: limb(a.l2), l3: limb(a.l3), l4: carry)
        self = f < 0 ? product.negated : product
    }

    var isNegative: Bool { l4 >> 63 == 1 }

    @inline(__always)
    var negated: SignedWide {
        SignedWide(l0: ~l0, l1: ~l1, l2: ~l2, l3: ~l3, l4: ~l4) + SignedWide(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)
    }

    @inline(__always)
    static func + (x: SignedWide, y: SignedWide) -> SignedWide {
        var carry = false
        func limb(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (s1, o1) = a.addingReportingOverflow(b)
            let (s2, o2) = s1.addingReportingOverflow(carry ? 1 : 0)
            carry = o1 || o2
            return s2
        }
        return SignedWide(
            l0: limb(x.l0, y.l0), l1: limb(x.l1, y.l1), l2: limb(x.l2, y.l2), l3: limb(x.l3, y.l3),
            l4: limb(x.l4, y.l4))
    }

    /// self / 2³¹ when its low 31 bits are zero (arithmetic shift: the sign stays).
    @inline(__always)
    var dividedBy2To31: SignedWide {
        SignedWide(
            l0: l0 >> 31 | l1 << 33, l1: l1 >> 31 | l2 << 33, l2: l2 >> 31 | l3 << 33, l3: l3 >> 31 | l4 << 33,
            l4: UInt64(bitPattern: Int64(bitPattern: l4) >> 31))
    }

    /// The low 256 bits: the value, when it is not negative and below 2²⁵⁶.
    var low256: P256Scalar { P256Scalar(l0: l0, l1: l1, l2: l2, l3: l3) }

    /// self / 2³¹ mod n, reduced: k·n is added first, k < 2³¹ chosen so the low 31 bits vanish.
    @inline(__always)
    var montgomeryDividedBy2To31: P256Scalar {
        let k = (l0 &* P256Scalar.nPrime) & (1 << 31 - 1)
        var t = (self + SignedWide(P256Scalar.n, times: Int64(k))).dividedBy2To31
        // |t| < 2²⁶⁰ / 2³¹ + n: a few additions or subtractions of n bring it into [0, n).
        let n = SignedWide(P256Scalar.n, times: 1)
        let minusN = SignedWide(P256Scalar.n, times: -1)
        while t.isNegative { t = t + n }
        while t.l4 != 0 || !t.low256.isReduced { t = t + minusN }
        return t.low256
    }
}
