/// An exact decimal amount in major units (`4.99`), for money sums that must not drift:
/// kept as millionths, so every amount shares one scale and sums never rescale.
/// At most 12 whole digits and 6 decimals; a sum that would overflow says so instead of
/// trapping or wrapping.
public struct DecimalAmount: Sendable, Equatable, CustomStringConvertible {
    /// Millionths of a major unit.
    public private(set) var micros: Int64
    /// Decimals to print (the most any added amount had, at least 2).
    public private(set) var scale: Int
    /// A sum went past what 64 bits hold.
    public private(set) var overflowed: Bool

    public static let zero = DecimalAmount(micros: 0, scale: 0, overflowed: false)

    init(micros: Int64, scale: Int, overflowed: Bool) {
        self.micros = micros
        self.scale = scale
        self.overflowed = overflowed
    }

    /// `4.99`, `-1.5`, `10`; nil for anything else or too many digits.
    public init?(_ text: String) {
        var negative = false
        var digits = Substring(text)
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 6, parts.count == 1 || !fraction.isEmpty,
              fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let w = Int64(whole), let f = Int64(fraction.isEmpty ? "0" : String(fraction)) else { return nil }
        var scaledFraction = f
        for _ in fraction.count..<6 { scaledFraction *= 10 }
        let v = w * 1_000_000 + scaledFraction  // at most 10^18: no overflow
        micros = negative ? -v : v
        scale = fraction.count
        overflowed = false
    }

    public static func + (a: DecimalAmount, b: DecimalAmount) -> DecimalAmount {
        let (sum, overflow) = a.micros.addingReportingOverflow(b.micros)
        return DecimalAmount(micros: overflow ? a.micros : sum, scale: max(a.scale, b.scale),
                             overflowed: a.overflowed || b.overflowed || overflow)
    }

    public static prefix func - (a: DecimalAmount) -> DecimalAmount {
        DecimalAmount(micros: a.micros == .min ? 0 : -a.micros, scale: a.scale, overflowed: a.overflowed || a.micros == .min)
    }

    public static func - (a: DecimalAmount, b: DecimalAmount) -> DecimalAmount {
        a + -b
    }

    /// `n` times the amount (units × unit price), overflow reported as for sums.
    public func multiplied(by n: Int64) -> DecimalAmount {
        let (product, overflow) = micros.multipliedReportingOverflow(by: n)
        return DecimalAmount(micros: overflow ? micros : product, scale: scale, overflowed: overflowed || overflow)
    }

    /// The part `n / d` of the amount, rounded toward zero (a share of a day's total).
    public func share(_ n: Int64, of d: Int64) -> DecimalAmount {
        guard d != 0, n != d else { return self }
        let (product, overflow) = micros.multipliedReportingOverflow(by: n)
        return DecimalAmount(micros: overflow ? micros : product / d, scale: scale, overflowed: overflowed || overflow)
    }

    public var isZero: Bool { micros == 0 && !overflowed }

    public static func == (a: DecimalAmount, b: DecimalAmount) -> Bool {
        a.micros == b.micros && a.overflowed == b.overflowed
    }

    /// At least two decimals (`412.80`), more when the inputs had them; `overflow` past 64 bits.
    public var description: String {
        guard !overflowed else { return "overflow" }
        let s = max(scale, 2)
        let magnitude = micros.magnitude
        var frac = String(magnitude % 1_000_000)
        frac = String(repeating: "0", count: 6 - frac.count) + frac
        return (micros < 0 ? "-" : "") + String(magnitude / 1_000_000) + "." + frac.prefix(s)
    }
}
