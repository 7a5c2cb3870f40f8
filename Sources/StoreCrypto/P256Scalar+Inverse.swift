extension P256Scalar {
    /// self⁻¹ mod n (zero for zero), by Bernstein and Yang's "safegcd" divsteps ("Fast
    /// constant-time gcd computation and modular inversion", 2019) in the variable-time form
    /// libsecp256k1 uses (`modinv64_var`), on signed 62-bit limbs: each round does 62 divsteps
    /// on the low 64 bits of f and g alone, as a 2×2 matrix of 64-bit factors, then applies
    /// the matrix once to the full f, g (exactly divided by 2⁶²) and to d, e (mod n, divided
    /// by 2⁶² with a multiple of n that clears the low bits). Invariants: f ≡ d·self and
    /// g ≡ e·self (mod n); when g reaches 0, f is ±1 and d is ±self⁻¹. Its time depends on
    /// self, public here (signatures only), and it stops as soon as g is 0.
    func inverse() -> P256Scalar {
        guard !isZero else { return .zero }
        var d = Signed62.zero
        var e = Signed62.one
        var f = Signed62.n
        var g = Signed62(reduced)
        var length = 5
        var eta: Int64 = -1
        // 590 divsteps always suffice for 256-bit inputs (Bernstein–Yang's bound): 10 rounds;
        // the cap only keeps a broken invariant from looping.
        for _ in 0..<12 {
            let t = Transition.divsteps62(eta: &eta, f: UInt64(bitPattern: f.v0), g: UInt64(bitPattern: g.v0))
            Signed62.updateDE(&d, &e, t)
            Signed62.updateFG(&f, &g, t, length: length)
            if g.v0 == 0, g.isZero(length: length) { break }
            // Both tops 0 or −1: one limb fewer, its sign carried into the limb below.
            let fn = f[length - 1]
            let gn = g[length - 1]
            if length > 1, fn ^ (fn >> 63) == 0, gn ^ (gn >> 63) == 0 {
                f[length - 2] |= Int64(bitPattern: UInt64(bitPattern: fn) << 62)
                g[length - 2] |= Int64(bitPattern: UInt64(bitPattern: gn) << 62)
                length -= 1
            }
        }
        // f = ±gcd(self, n) = ±1 (n is prime), its sign in its top limb; d = ±self⁻¹.
        guard g.isZero(length: length) else { return .zero }
        return d.normalized(negate: f[length - 1] < 0).scalar
    }
}

/// The matrix of one round's 62 divsteps: [u v; q r] · [f; g] = 2⁶² · [f'; g'].
private struct Transition {
    var u, v, q, r: Int64

    /// 62 divsteps on the low bits of f (odd) and g, several at once where they only halve g.
    @inline(__always)
    static func divsteps62(eta: inout Int64, f f0: UInt64, g g0: UInt64) -> Transition {
        var (u, v, q, r): (UInt64, UInt64, UInt64, UInt64) = (1, 0, 0, 1)
        var f = f0
        var g = g0
        var left = 62
        while true {
            // A sentinel bit stops the count of zeros at the steps left.
            let zeros = (g | (UInt64.max << UInt64(left))).trailingZeroBitCount
            g >>= UInt64(zeros)
            u <<= UInt64(zeros)
            v <<= UInt64(zeros)
            eta -= Int64(zeros)
            left -= zeros
            if left == 0 { break }
            let w: UInt64
            if eta < 0 {
                // f, g become g, −f: then up to six low bits of g are cancelled at once (no
                // more than the steps left, nor than eta + 1, past which eta turns again).
                eta = -eta
                (f, g) = (g, 0 &- f)
                (u, q) = (q, 0 &- u)
                (v, r) = (r, 0 &- v)
                let limit = Int(min(eta + 1, Int64(left)))
                w = (f &* g &* (f &* f &- 2)) & (UInt64.max >> UInt64(64 - limit)) & 63
            } else {
                // Up to four bits: eta tends to be small here.
                let limit = Int(min(eta + 1, Int64(left)))
                let fw = f &+ (((f &+ 1) & 4) << 1)
                w = (0 &- fw &* g) & (UInt64.max >> UInt64(64 - limit)) & 15
            }
            g &+= f &* w
            q &+= u &* w
            r &+= v &* w
        }
        return Transition(
            u: Int64(bitPattern: u), v: Int64(bitPattern: v), q: Int64(bitPattern: q), r: Int64(bitPattern: r))
    }
}

/// A signed number in five limbs of 62 bits (the top one signed, the others in [0, 2⁶²)
/// once normalised; intermediate limbs may hold more, as in libsecp256k1).
private struct Signed62 {
    var v0, v1, v2, v3, v4: Int64

    static let mask62: Int64 = Int64(bitPattern: UInt64.max >> 2)
    static let zero = Signed62(v0: 0, v1: 0, v2: 0, v3: 0, v4: 0)
    static let one = Signed62(v0: 1, v1: 0, v2: 0, v3: 0, v4: 0)
    static let n = Signed62(P256Scalar.n)
    /// n⁻¹ mod 2⁶² (n is odd): from −n⁻¹ mod 2⁶⁴, which the Montgomery products keep.
    static let nInverse62 = (0 &- P256Scalar.nPrime) & (UInt64.max >> 2)

    init(v0: Int64, v1: Int64, v2: Int64, v3: Int64, v4: Int64) {
        (self.v0, self.v1, self.v2, self.v3, self.v4) = (v0, v1, v2, v3, v4)
    }

    init(_ s: P256Scalar) {
        let m = UInt64.max >> 2
        self.init(
            v0: Int64(bitPattern: s.l0 & m), v1: Int64(bitPattern: (s.l0 >> 62 | s.l1 << 2) & m),
            v2: Int64(bitPattern: (s.l1 >> 60 | s.l2 << 4) & m), v3: Int64(bitPattern: (s.l2 >> 58 | s.l3 << 6) & m),
            v4: Int64(bitPattern: s.l3 >> 56))
    }

    /// The four 64-bit limbs of a normalised value (every limb in [0, 2⁶²), below n).
    var scalar: P256Scalar {
        let (a, b, c, d, e) = (
            UInt64(bitPattern: v0), UInt64(bitPattern: v1), UInt64(bitPattern: v2), UInt64(bitPattern: v3),
            UInt64(bitPattern: v4)
        )
        return P256Scalar(l0: a | b << 62, l1: b >> 2 | c << 60, l2: c >> 4 | d << 58, l3: d >> 6 | e << 56)
    }

    subscript(i: Int) -> Int64 {
        get {
            switch i {
            case 0: v0
            case 1: v1
            case 2: v2
            case 3: v3
            default: v4
            }
        }
        set {
            switch i {
            case 0: v0 = newValue
            case 1: v1 = newValue
            case 2: v2 = newValue
            case 3: v3 = newValue
            default: v4 = newValue
            }
        }
    }

    func isZero(length: Int) -> Bool {
        var any: Int64 = 0
        for i in 0..<length { any |= self[i] }
        return any == 0
    }

    /// (t · [d; e] + n · [md; me]) / 2⁶², with md, me chosen to make the division exact and
    /// to keep d and e within (−2n, n).
    @inline(__always)
    static func updateDE(_ d: inout Signed62, _ e: inout Signed62, _ t: Transition) {
        let (u, v, q, r) = (t.u, t.v, t.q, t.r)
        let sd = d.v4 >> 63
        let se = e.v4 >> 63
        var md = (u & sd) &+ (v & se)
        var me = (q & sd) &+ (r & se)
        var cd = wide(u, d.v0) &+ wide(v, e.v0)
        var ce = wide(q, d.v0) &+ wide(r, e.v0)
        /// The multiple of n to add so that the low 62 bits of c + n·m are zero.
        func clearing(_ c: Int128, _ m: Int64) -> Int64 {
            let low = nInverse62 &* UInt64(truncatingIfNeeded: c) &+ UInt64(bitPattern: m)
            return Int64(bitPattern: low & (UInt64.max >> 2))
        }
        md &-= clearing(cd, md)
        me &-= clearing(ce, me)
        let n = Signed62.n
        cd &+= wide(n.v0, md)
        ce &+= wide(n.v0, me)
        cd >>= 62
        ce >>= 62
        func limb(_ di: Int64, _ ei: Int64, _ ni: Int64) -> (Int64, Int64) {
            cd &+= wide(u, di) &+ wide(v, ei) &+ wide(ni, md)
            ce &+= wide(q, di) &+ wide(r, ei) &+ wide(ni, me)
            let outD = Int64(truncatingIfNeeded: cd) & mask62
            let outE = Int64(truncatingIfNeeded: ce) & mask62
            cd >>= 62
            ce >>= 62
            return (outD, outE)
        }
        let (d0, e0) = limb(d.v1, e.v1, n.v1)
        let (d1, e1) = limb(d.v2, e.v2, n.v2)
        let (d2, e2) = limb(d.v3, e.v3, n.v3)
        let (d3, e3) = limb(d.v4, e.v4, n.v4)
        d = Signed62(v0: d0, v1: d1, v2: d2, v3: d3, v4: Int64(truncatingIfNeeded: cd))
        e = Signed62(v0: e0, v1: e1, v2: e2, v3: e3, v4: Int64(truncatingIfNeeded: ce))
    }

    /// t · [f; g] / 2⁶² over the first `length` limbs (the division is exact).
    @inline(__always)
    static func updateFG(_ f: inout Signed62, _ g: inout Signed62, _ t: Transition, length: Int) {
        let (u, v, q, r) = (t.u, t.v, t.q, t.r)
        var cf = wide(u, f.v0) &+ wide(v, g.v0)
        var cg = wide(q, f.v0) &+ wide(r, g.v0)
        cf >>= 62
        cg >>= 62
        for i in 1..<length {
            let fi = f[i]
            let gi = g[i]
            cf &+= wide(u, fi) &+ wide(v, gi)
            cg &+= wide(q, fi) &+ wide(r, gi)
            f[i - 1] = Int64(truncatingIfNeeded: cf) & mask62
            g[i - 1] = Int64(truncatingIfNeeded: cg) & mask62
            cf >>= 62
            cg >>= 62
        }
        f[length - 1] = Int64(truncatingIfNeeded: cf)
        g[length - 1] = Int64(truncatingIfNeeded: cg)
    }

    /// From (−2n, n), negated when asked, into [0, n) with every limb in [0, 2⁶²).
    func normalized(negate: Bool) -> Signed62 {
        var r = self
        let n = Signed62.n
        func addN(if condition: Int64) {
            r.v0 &+= n.v0 & condition
            r.v1 &+= n.v1 & condition
            r.v2 &+= n.v2 & condition
            r.v3 &+= n.v3 & condition
            r.v4 &+= n.v4 & condition
        }
        func carry() {
            r.v1 &+= r.v0 >> 62
            r.v0 &= Signed62.mask62
            r.v2 &+= r.v1 >> 62
            r.v1 &= Signed62.mask62
            r.v3 &+= r.v2 >> 62
            r.v2 &= Signed62.mask62
            r.v4 &+= r.v3 >> 62
            r.v3 &= Signed62.mask62
        }
        addN(if: r.v4 >> 63)
        if negate {
            r.v0 = 0 &- r.v0
            r.v1 = 0 &- r.v1
            r.v2 = 0 &- r.v2
            r.v3 = 0 &- r.v3
            r.v4 = 0 &- r.v4
        }
        carry()
        addN(if: r.v4 >> 63)
        carry()
        return r
    }
}

/// a·b in full: one 64-bit multiplication, no overflow check (none can overflow).
@inline(__always)
private func wide(_ a: Int64, _ b: Int64) -> Int128 {
    let p = a.multipliedFullWidth(by: b)
    return Int128(p.high) << 64 | Int128(p.low)
}
