import ReceiptFormats
import StoreCrypto

/// What a Rules directory's trust lets iapscreen check, as people read it: each Apple anchor
/// by its name and SHA-256 fingerprint, and the stores whose signatures no file lets it check
/// (`rules check`, and every run that meets such a store's receipts).
public struct TrustSummary: Sendable {
    /// The store a signature belongs to, as summary.json names it.
    public enum Store: String, Sendable {
        case apple, google

        /// The platform of the receipts this store signs.
        public var platform: Platform { self == .apple ? .ios : .android }

        /// The stores no file of these lets iapscreen check: no Apple anchor, no Google key.
        public static func untrusted(appleAnchorFiles: [String], googleKeyFiles: [String: String]) -> [Store] {
            (appleAnchorFiles.isEmpty ? [.apple] : []) + (googleKeyFiles.isEmpty ? [.google] : [])
        }
    }

    public struct Anchor: Sendable {
        public var file: String
        public var commonName: String
        /// Lower-case hex SHA-256 of the certificate's DER.
        public var sha256: String
    }

    public var appleAnchors: [Anchor]
    public var googlePackages: [String]

    /// Reads every anchor file (a file that cannot be used throws, naming it).
    public init(appleAnchorFiles: [String], googleKeyFiles: [String: String]) throws(TrustFileError) {
        var anchors: [Anchor] = []
        for path in appleAnchorFiles {
            for certificate in try TrustFiles.appleAnchors([path]) {
                let digest = (try? Digest.sha256(certificate.der)).map(Digest.hex) ?? "?"
                anchors.append(
                    Anchor(file: path, commonName: certificate.subjectCommonName ?? certificate.subject, sha256: digest)
                )
            }
        }
        appleAnchors = anchors
        googlePackages = googleKeyFiles.keys.sorted()
        untrusted = Store.untrusted(appleAnchorFiles: appleAnchorFiles, googleKeyFiles: googleKeyFiles)
    }

    /// The stores whose signatures these files cannot check.
    public let untrusted: [Store]
}
