/// An exact decimal amount in major units (`4.99`), for money sums that must not drift:
/// kept as an integer count of 10^-scale units.
public struct DecimalAmount: Sendable, Equatable, CustomStringConvertible {
    public private(set) var units: Int64
    public private(set) var scale: Int

    public static let zero = DecimalAmount(units: 0, scale: 0)

    init(units: Int64, scale: Int) {
        self.units = units
        self.scale = scale
    }

    /// `4.99`, `-1.5`, `10`: at most 6 decimals and 15 integer digits; nil otherwise.
    public init?(_ text: String) {
        var negative = false
        var digits = Substring(text)
        if digits.first == "-" { negative = true; digits = digits.dropFirst() }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 15,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 6, parts.count == 1 || !fraction.isEmpty,
              fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let w = Int64(whole), let f = Int64(fraction.isEmpty ? "0" : String(fraction)) else { return nil }
        var v = w
        for _ in 0..<fraction.count { v *= 10 }
        v += f
        units = negative ? -v : v
        scale = fraction.count
    }

    private func rescaled(to s: Int) -> Int64 {
        var v = units
        for _ in scale..<max(scale, s) { v *= 10 }
        return v
    }

    public static func + (a: DecimalAmount, b: DecimalAmount) -> DecimalAmount {
        let s = max(a.scale, b.scale)
        return DecimalAmount(units: a.rescaled(to: s) + b.rescaled(to: s), scale: s)
    }

    public static func == (a: DecimalAmount, b: DecimalAmount) -> Bool {
        let s = max(a.scale, b.scale)
        return a.rescaled(to: s) == b.rescaled(to: s)
    }

    /// At least two decimals (`412.80`), more when the inputs had them.
    public var description: String {
        let s = max(scale, 2)
        let v = rescaled(to: s)
        let negative = v < 0
        let magnitude = v.magnitude
        var div: UInt64 = 1
        for _ in 0..<s { div *= 10 }
        var frac = String(magnitude % div)
        frac = String(repeating: "0", count: s - frac.count) + frac
        return (negative ? "-" : "") + String(magnitude / div) + "." + frac
    }
}
