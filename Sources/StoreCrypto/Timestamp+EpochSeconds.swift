import IAPBasics

extension Timestamp {
    /// Whole seconds since the epoch, rounded down (OpenSSL's `time_t` has no milliseconds).
    var flooredEpochSeconds: Int64 {
        let (seconds, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        return remainder < 0 ? seconds - 1 : seconds
    }
}
