import Foundation

/// What a desk password must be (CONTRACT §14: at least 12 characters), and the one form in
/// which it is hashed.
///
/// Length is counted in Unicode scalars (code points), as NIST SP 800-63B §5.1.1.2 counts
/// characters: a count that does not change with the Unicode version's grapheme rules. The
/// password is normalised to NFKC first (NIST's advice), so the same password typed on two
/// keyboards (composed or decomposed accents, full-width letters) hashes the same.
public enum PasswordRule {
    /// The fewest Unicode scalars a new password may have, after normalisation.
    public static let minimumScalars = 12

    /// The most UTF-8 bytes a password may have as received: a longer one is refused before any
    /// work is done on it, so a huge body cannot make the desk normalise and hash megabytes.
    public static let maximumBytes = 1024

    /// The password as it is hashed when it is set: normalised and long enough, else refused.
    static func newPassword(_ password: String) throws(DeskSecurityError) -> String {
        let normalised = try candidate(password)
        let count = normalised.unicodeScalars.count
        guard count >= minimumScalars else {
            throw DeskSecurityError(
                .passwordTooShort,
                "a password needs at least \(minimumScalars) characters; this one has \(count)")
        }
        return normalised
    }

    /// The password as it is checked at a login: normalised, and not over the cap. No minimum
    /// here, so that raising the minimum never locks out a password set under the old one.
    static func candidate(_ password: String) throws(DeskSecurityError) -> String {
        let bytes = password.utf8.count
        guard bytes <= maximumBytes else {
            throw DeskSecurityError(
                .passwordTooLong, "a password may have at most \(maximumBytes) bytes of UTF-8; this one has \(bytes)")
        }
        return password.precomposedStringWithCompatibilityMapping
    }
}
