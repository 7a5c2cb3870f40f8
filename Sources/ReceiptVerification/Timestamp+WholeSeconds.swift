import IAPBasics

extension Timestamp {
    /// Whole seconds since the epoch, rounded down: OpenSSL judges validity in seconds, and
    /// receipts compare dates to the second.
    var wholeSeconds: Int64 {
        let (seconds, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? seconds - 1 : seconds
    }
}
