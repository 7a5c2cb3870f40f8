internal import CSodium

/// libsodium, initialised once per process before any of its functions runs.
enum Sodium {
    /// `sodium_init` picks the fastest implementations and opens the system's randomness; a
    /// static `let` runs it exactly once, whichever thread comes first.
    private static let initialised: Bool = sodium_init() >= 0

    /// Stops the process when libsodium cannot start: without the system's randomness no token
    /// and no salt may be made, and there is nothing safe to fall back on.
    static func ready() {
        precondition(initialised, "libsodium could not be initialised (no system randomness)")
    }

    /// Runs `body` over the UTF-8 bytes of `text` itself (a pointer and a count): libsodium reads
    /// them in place, so no copy of a password is made here that would need wiping. The pointer
    /// is never null, as libsodium requires, even for an empty string.
    static func withUTF8<Result>(of text: String, _ body: (UnsafePointer<CChar>, Int) -> Result) -> Result {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress { return body(base, chars.count) }
                var nothing: CChar = 0
                return body(&nothing, 0)
            }
        }
    }
}
