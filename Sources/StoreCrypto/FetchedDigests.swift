import COpenSSL

/// SHA-1 and SHA-256 fetched from the default provider once. `EVP_sha256()` and friends
/// make OpenSSL 3 look the implementation up again on every init, a measurable share of
/// a signature check.
///
/// `@unchecked Sendable`: fetched `EVP_MD`s are immutable and meant to be shared across
/// threads; they are never freed (process lifetime).
final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()

    private let sha1: OpaquePointer?
    private let sha256: OpaquePointer?

    private init() {
        sha1 = EVP_MD_fetch(nil, "SHA1", nil)
        sha256 = EVP_MD_fetch(nil, "SHA256", nil)
        OpenSSLErrorQueue.clear()
    }

    /// The fetched method, or OpenSSL's built-in one if the fetch failed.
    func method(for algorithm: DigestAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .sha1: return sha1 ?? EVP_sha1()
        case .sha256: return sha256 ?? EVP_sha256()
        }
    }
}
