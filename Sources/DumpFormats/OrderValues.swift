import IAPBasics

/// The store an order was bought in. (Named apart from ReceiptFormats' `Platform`, which
/// this pure module does not see; the raw values are the same.)
public enum OrderPlatform: String, Sendable, Equatable, Hashable {
    case ios
    case android

    /// `ios`/`apple`/`appstore`, `android`/`google`/`googleplay`/`play`, any case, `_`,
    /// `-` and spaces ignored (`App Store`, `google_play`).
    init?(dumpText: String) {
        switch DumpColumn.normalised(dumpText) {
        case "ios", "apple", "appstore": self = .ios
        case "android", "google", "googleplay", "play": self = .android
        default: return nil
        }
    }
}

/// What the app did with an order. Only credited orders are screened.
public enum OrderStatus: String, Sendable, Equatable, Hashable {
    case credited
    case pending
    case refunded
    case failed

    /// docs/inputs.md: `credited` (also empty, `paid`, `success`, `completed`, `granted`),
    /// `pending`, `refunded`, `failed` (also `cancelled`, `canceled`), any case.
    init?(dumpText: String) {
        switch DumpColumn.normalised(dumpText) {
        case "", "credited", "paid", "success", "completed", "granted": self = .credited
        case "pending": self = .pending
        case "refunded": self = .refunded
        case "failed", "cancelled", "canceled": self = .failed
        default: return nil
        }
    }
}

/// The environment an order says it was made in; it overrides `--environment`.
public enum OrderEnvironment: String, Sendable, Equatable, Hashable {
    case production
    case sandbox

    /// `production`/`prod` or `sandbox`, any case.
    init?(dumpText: String) {
        switch DumpColumn.normalised(dumpText) {
        case "production", "prod": self = .production
        case "sandbox": self = .sandbox
        default: return nil
        }
    }
}

/// How much of a purchase the customer has used up (`consumed`, docs/inputs.md), in
/// milliunits of the whole as Apple counts it: 0 (nothing) to 100000 (all of it).
public struct ConsumedShare: Sendable, Equatable, Hashable {
    public static let whole: Int32 = 100_000

    public let milliunits: Int32

    public init?(milliunits: Int32) {
        guard (0...Self.whole).contains(milliunits) else { return nil }
        self.milliunits = milliunits
    }

    /// A fraction `0`–`1` (`0.25`) or a percentage `0%`–`100%` (`25%`, `25 %`); rounded to
    /// the nearest milliunit. Anything else, or a share above the whole, is nil.
    init?(dumpText: String) {
        var text = Substring(dumpText)
        let percent = text.last == "%"
        if percent { text = text.dropLast() }
        while text.last == " " { text = text.dropLast() }
        // Millionths of the number as written: a fraction's whole is 10^6, a percentage's 10^8.
        guard !text.hasPrefix("-"), let number = DecimalAmount(String(text)) else { return nil }
        let micros = number.micros
        let whole: Int64 = percent ? 100_000_000 : 1_000_000
        guard micros <= whole else { return nil }
        let milli = (micros * Int64(Self.whole) * 2 + whole) / (2 * whole)
        self.init(milliunits: Int32(milli))
    }

    /// `25%`, `33.333%`: as `why` and `explain` say it.
    public var percentText: String {
        let whole = milliunits / 1000
        let rest = milliunits % 1000
        guard rest != 0 else { return "\(whole)%" }
        var decimals = String(rest)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.last == "0" { decimals.removeLast() }
        return "\(whole).\(decimals)%"
    }
}

/// Whether the customer agreed that we share consumption data with the store (`consent`).
public enum OrderConsent: String, Sendable, Equatable, Hashable {
    case yes
    case no

    /// `yes`/`true`/`1` or `no`/`false`/`0`, any case.
    init?(dumpText: String) {
        switch DumpColumn.normalised(dumpText) {
        case "yes", "true", "1": self = .yes
        case "no", "false", "0": self = .no
        default: return nil
        }
    }
}
