import COpenSSL

/// The digests store signatures use: SHA-1 (iOS 6 receipts, older app receipts, Google)
/// and SHA-256 (newer app receipts, JWS).
public enum DigestAlgorithm: String, Sendable, Equatable, CaseIterable {
    case sha1 = "SHA-1"
    case sha256 = "SHA-256"

    /// The digest's dotted OID, as PKCS#7 `digestAlgorithm` names it.
    public var oid: String {
        switch self {
        case .sha1: return "1.3.14.3.2.26"
        case .sha256: return "2.16.840.1.101.3.4.2.1"
        }
    }

    /// The digest a dotted OID names; nil for any other.
    public init?(oid: String) {
        guard let match = DigestAlgorithm.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = match
    }

    public var byteCount: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        }
    }

    /// OpenSSL's implementation, fetched once per process.
    var evpMD: OpaquePointer? { FetchedDigests.shared.method(for: self) }
}
