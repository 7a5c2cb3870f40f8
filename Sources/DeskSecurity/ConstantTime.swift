internal import CSodium

/// Comparisons of secrets whose time does not depend on where they differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same UTF-8 bytes. Strings of different lengths are unequal at
    /// once: our tokens and digests have a fixed, public length, so only their content is secret.
    public static func equal(_ a: String, _ b: String) -> Bool {
        Sodium.ready()
        return Sodium.withUTF8(of: a) { left, leftCount in
            Sodium.withUTF8(of: b) { right, rightCount in
                leftCount == rightCount && sodium_memcmp(left, right, leftCount) == 0
            }
        }
    }
}
