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
