/// How many decimals a currency's amounts are written with: its ISO 4217 minor unit.
public enum CurrencyScale {
    /// ISO 4217 currencies whose minor unit is not 2 (the rest, and any code nobody knows, have 2).
    private static let exceptions: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0,
        "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// The decimals of `code` (`USD` 2, `JPY` 0, `BHD` 3), in any case; 2 for a code not in ISO 4217.
    public static func decimals(of code: String) -> Int {
        exceptions[code.uppercased()] ?? 2
    }
}

extension DecimalAmount {
    /// The amount as people write it in `currency`: `4.99` USD, `150` JPY, `1.250` BHD.
    /// An amount with more digits than its currency has (`4.995` USD, a share of a day's
    /// total) keeps them all: rounding it would change the money silently. `overflow` past
    /// 64 bits.
    public func text(in currency: String) -> String {
        guard !overflowed else { return "overflow" }
        let (whole, fraction) = digits
        // The decimals the value has: its fraction without trailing zeros.
        let exact = fraction.reversed().drop { $0 == "0" }.count
        let shown = max(CurrencyScale.decimals(of: currency), exact)
        return shown == 0 ? whole : whole + "." + fraction.prefix(shown)
    }
}
