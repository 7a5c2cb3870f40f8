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

    /// `-`? then 1–12 ASCII digits, then optionally `.` and 1–6 digits; nothing else.
    /// Read on the UTF-8 bytes: every order has an amount, and this runs once per order.
    public init?(_ text: String) {
        var value: Int64 = 0
        var wholeDigits = 0
        var fractionDigits = 0
        var negative = false
        var inFraction = false
        for (i, b) in text.utf8.enumerated() {
            switch b {
            case 0x2D where i == 0:
                negative = true
            case 0x2E where !inFraction && wholeDigits > 0:
                inFraction = true
            case 0x30...0x39:
                if inFraction { fractionDigits += 1 } else { wholeDigits += 1 }
                guard wholeDigits <= 12, fractionDigits <= 6 else { return nil }
                value = value * 10 + Int64(b - 0x30)  // at most 18 digits: no overflow
            default:
                return nil
            }
        }
        guard wholeDigits > 0, !inFraction || fractionDigits > 0 else { return nil }
        for _ in fractionDigits..<6 { value *= 10 }
        micros = negative ? -value : value
        scale = fractionDigits
        overflowed = false
    }

    public static func + (a: DecimalAmount, b: DecimalAmount) -> DecimalAmount {
        let (sum, overflow) = a.micros.addingReportingOverflow(b.micros)
        return DecimalAmount(
            micros: overflow ? a.micros : sum, scale: max(a.scale, b.scale),
            overflowed: a.overflowed || b.overflowed || overflow)
    }

    public static prefix func - (a: DecimalAmount) -> DecimalAmount {
        DecimalAmount(
            micros: a.micros == .min ? 0 : -a.micros, scale: a.scale, overflowed: a.overflowed || a.micros == .min)
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
        let (whole, fraction) = digits
        return whole + "." + fraction.prefix(max(scale, 2))
    }

    /// The signed whole part, and all six decimals (`("-4", "990000")`).
    var digits: (whole: String, fraction: String) {
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000_000)
        return (
            (micros < 0 ? "-" : "") + String(magnitude / 1_000_000),
            String(repeating: "0", count: 6 - fraction.count) + fraction
        )
    }
}
