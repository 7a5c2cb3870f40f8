import IAPBasics
import Night

/// What `explain` prints of the refund requests whose answer names the order
/// (docs/consumption.md): each with its deadline, the answer consumption.jsonl gives (or that it
/// is past its deadline at `now`), and why, field by field.
struct RequestLines {
    let lines: [String]

    /// nil when no request's answer names the order.
    init?(_ requests: [RequestWords], now: Timestamp) {
        guard !requests.isEmpty else { return nil }
        lines = ["refund requests of its transaction:"] + requests.flatMap { $0.lines(at: now) }
    }
}
