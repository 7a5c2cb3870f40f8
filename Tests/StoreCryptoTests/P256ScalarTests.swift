import IAPBasics
import Testing

@testable import StoreCrypto

/// Arithmetic modulo P-256's order, as the ES256 checks use it: against a slow reference
/// built from additions alone, and against what inverses must satisfy.
@Suite("Numbers modulo the P-256 order")
struct P256ScalarTests {
    /// A deterministic stream of reduced scalars, with the edges first.
    static func samples(_ count: Int) -> [P256Scalar] {
        var random = SeededRandom(seed: 0)
        func next() -> UInt64 { random.next() }
        let n = P256Scalar.n
        var out = [
            P256Scalar.one, P256Scalar(l0: 2, l1: 0, l2: 0, l3: 0),
            P256Scalar(l0: n.l0 - 1, l1: n.l1, l2: n.l2, l3: n.l3),
            P256Scalar(l0: .max, l1: .max, l2: .max, l3: 0xFFFF_FFFE_FFFF_FFFF),
        ]
        while out.count < count {
            let x = P256Scalar(l0: next(), l1: next(), l2: next(), l3: next()).reduced
            if !x.isZero { out.append(x) }
        }
        return out
    }

    /// a·b mod n by doubling and adding, bit by bit of b.
    static func slowProduct(_ a: P256Scalar, _ b: P256Scalar) -> P256Scalar {
        var result = P256Scalar.zero
        for limb in [b.l3, b.l2, b.l1, b.l0] {
            for bit in stride(from: 63, through: 0, by: -1) {
                result = result.addedMod(result)
                if (limb >> UInt64(bit)) & 1 == 1 { result = result.addedMod(a) }
            }
        }
        return result
    }

    @Test("the constants are what n makes them: −n⁻¹ mod 2⁶⁴, R mod n and R² mod n")
    func constants() {
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- P256Scalar.n.l0 &* inverse) }  // Newton: n·n⁻¹ ≡ 1 mod 2⁶⁴
        #expect(0 &- inverse == P256Scalar.nPrime)
        let wrapped = P256Scalar.rModN.wrappingAdd(P256Scalar.n)
        #expect(wrapped.sum == .zero && wrapped.carried, "R mod n is 2²⁵⁶ − n")
        var rr = P256Scalar.rModN
        for _ in 0..<256 { rr = rr.addedMod(rr) }
        #expect(rr == P256Scalar.rSquared)
    }

    @Test("products agree with doubling and adding")
    func products() {
        let xs = Self.samples(40)
        for (a, b) in zip(xs, xs.reversed()) {
            #expect(a.multipliedMod(b) == Self.slowProduct(a, b))
        }
    }

    @Test("s times its inverse is one, the inverse of the inverse is s, and 2⁻¹ is (n + 1) / 2")
    func inverses() {
        for s in Self.samples(2_000) {
            let w = s.inverse()
            #expect(w.isReduced)
            #expect(s.multipliedMod(w) == .one)
            #expect(w.inverse() == s)
        }
        let n = P256Scalar.n
        let half = P256Scalar(
            l0: n.l0 >> 1 | n.l1 << 63, l1: n.l1 >> 1 | n.l2 << 63, l2: n.l2 >> 1 | n.l3 << 63, l3: n.l3 >> 1)
        #expect(P256Scalar(l0: 2, l1: 0, l2: 0, l3: 0).inverse() == half.addedMod(.one))
    }

    @Test("a batch's inverses, made with one inversion, are each value's own; zero and n are left out")
    func batchInverses() {
        let values = Self.samples(300)
        func bytes(_ s: P256Scalar) -> [UInt8] { [UInt8](repeating: 0x5A, count: 32) + s.bigEndianBytes }
        let signatures = values.map(bytes) + [bytes(.zero), bytes(.n), Array(bytes(.one).prefix(63))]
        let batch = ES256Inverses(signatures: signatures)
        for s in values { #expect(batch.inverse(of: s) == s.inverse()) }
        for s in values.reversed() { #expect(batch.inverse(of: s) == s.inverse()) }
        #expect(batch.inverse(of: .zero) == nil)
        #expect(ES256Inverses(signatures: [bytes(.one)]).inverse(of: .one) == .one)
    }

    @Test("inverses of values with long runs of zero or one bits: powers of two, n − 2ʲ, 2ʲ + 1")
    func sparseInverses() {
        var values: [P256Scalar] = []
        var power = P256Scalar.one
        for j in 0..<256 {
            if [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 191, 192, 200, 254, 255].contains(j) {
                values += [power, P256Scalar.n.wrappingSubtract(power), power.addedMod(.one)]
            }
            power = power.wrappingAdd(power).sum
        }
        for s in values where !s.isZero && s.isReduced {
            #expect(s.multipliedMod(s.inverse()) == .one, "\(s)")
        }
        #expect(P256Scalar.zero.inverse() == .zero)
    }

    @Test("32 big-endian bytes in and out; n itself and above are not reduced, and reduce below n")
    func bytes() {
        let text = "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
        let nBytes = KeyTableTests.hexBytes(text)
        let n = P256Scalar(bigEndian: nBytes)
        #expect(n == P256Scalar.n && n?.bigEndianBytes == nBytes)
        #expect(n?.isReduced == false && n?.reduced == .zero)
        #expect(P256Scalar(bigEndian: [UInt8](repeating: 0, count: 31)) == nil)
        let ones = P256Scalar(bigEndian: [UInt8](repeating: 0xFF, count: 32))
        #expect(ones?.reduced.isReduced == true)
    }
}
