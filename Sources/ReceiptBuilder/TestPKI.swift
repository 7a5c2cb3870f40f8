import IAPBasics
import StoreCrypto

/// A complete fake Apple + Google world for tests, the benchmark and `samples`:
///
/// - PKCS#7 app receipts: RSA "Apple Root CA" → WWDR (6.2.1) → receipt signing (6.11.1)
/// - JWS: EC "Apple Root CA - G3" → WWDR G6 (6.2.1) → JWS signing (6.11.1)
/// - iOS 6 receipts: RSA root → "iTunes Store CA" (6.2.2) → RSA-1024 leaf (6.5.1), all SHA-1
/// - Xcode: self-signed "StoreKit Testing in Xcode", RSA (receipts) and EC (JWS)
/// - developer look-alikes: leaves under WWDR / WWDR G6 without 6.11.1 (a forger's best try)
/// - Google: an RSA-2048 licensing key
///
/// Names say "Test" so nobody mistakes them for Apple's. Anchors for `Rules/trust/apple`:
/// the two roots and the iTunes Store CA (iOS 6 chains are checked up to it).
public struct TestPKI: Sendable {
    public let keys: Keys

    public let appleRoot: X509Certificate
    public let wwdr: X509Certificate
    public let receiptSigning: X509Certificate
    public let appleRootG3: X509Certificate
    public let wwdrG6: X509Certificate
    public let jwsSigning: X509Certificate
    public let iTunesStoreCA: X509Certificate
    public let legacyReceiptSigning: X509Certificate
    public let xcodeReceipt: X509Certificate
    public let xcodeJWS: X509Certificate
    public let developerReceiptSigning: X509Certificate
    public let developerJWSSigning: X509Certificate

    /// File names under `certificates/` when saved, in the order `all` lists them.
    static let certificateNames = [
        "apple-root-ca", "apple-wwdr", "receipt-signing", "apple-root-ca-g3", "apple-wwdr-g6", "jws-signing",
        "itunes-store-ca", "ios6-receipt-signing", "xcode-storekit-rsa", "xcode-storekit-ec",
        "developer-rsa", "developer-ec",
    ]

    var allCertificates: [X509Certificate] {
        [
            appleRoot, wwdr, receiptSigning, appleRootG3, wwdrG6, jwsSigning, iTunesStoreCA, legacyReceiptSigning,
            xcodeReceipt, xcodeJWS, developerReceiptSigning, developerJWSSigning,
        ]
    }

    /// A world with `validity` (default: `Validity.standard()`) and `keys` (default: fresh ones).
    public init(validity: Validity? = nil, keys: Keys? = nil) throws {
        let validity = try validity ?? Validity.standard()
        let keys = try keys ?? Keys.generate()
        let apple = { (commonName: String, unit: String?) in
            DistinguishedName(
                commonName: "Test " + commonName, organization: "Apple Inc.", organizationalUnit: unit,
                country: "US")
        }
        let authority = "Apple Certification Authority"
        let wwdrUnit = "Apple Worldwide Developer Relations"

        let appleRoot = try Self.builder(apple("Apple Root CA", authority), 0x02, validity.roots, ca: true)
            .selfSigned(with: keys.appleRoot)
        let wwdr = try Self.builder(
            apple("Apple Worldwide Developer Relations Certification Authority", wwdrUnit),
            0x01DE_34E9, validity.intermediates, ca: true,
            markers: [AppleMarkerOID.wwdrIntermediate]
        )
        .issued(for: keys.wwdr.publicKey(), by: appleRoot, issuerKey: keys.appleRoot)
        let receiptSigning = try Self.builder(
            apple("Mac App Store and iTunes Store Receipt Signing", wwdrUnit),
            0x5B_2A_6F_01, validity.receiptLeaves, ca: false,
            markers: [AppleMarkerOID.receiptSigning]
        )
        .issued(for: keys.receiptSigning.publicKey(), by: wwdr, issuerKey: keys.wwdr)

        let appleRootG3 = try Self.builder(
            apple("Apple Root CA - G3", authority), 0x2D_C5_FC_88, validity.roots, ca: true
        )
        .selfSigned(with: keys.appleRootG3)
        let wwdrG6 = try Self.builder(
            apple("Apple Worldwide Developer Relations Certification Authority", "G6"),
            0x0370_EB4C, validity.intermediates, ca: true,
            markers: [AppleMarkerOID.wwdrIntermediate]
        )
        .issued(for: keys.wwdrG6.publicKey(), by: appleRootG3, issuerKey: keys.appleRootG3)
        let jwsSigning = try Self.builder(
            apple("Prod ECC Mac App Store and iTunes Store Receipt Signing", wwdrUnit),
            0x7B_E8_19_2C, validity.receiptLeaves, ca: false,
            markers: [AppleMarkerOID.receiptSigning]
        )
        .issued(for: keys.jwsSigning.publicKey(), by: wwdrG6, issuerKey: keys.wwdrG6)

        let iTunesStoreCA = try Self.builder(
            apple("Apple iTunes Store Certification Authority", authority),
            0x1A, validity.iTunesStoreCA, ca: true,
            markers: [AppleMarkerOID.iTunesStoreIntermediate], digest: .sha1
        )
        .issued(for: keys.iTunesStoreCA.publicKey(), by: appleRoot, issuerKey: keys.appleRoot)
        let legacyReceiptSigning = try Self.builder(
            apple("PurchaseReceiptCertificate", "Apple iTunes Store"),
            0x0B_1C_2D_3E, validity.legacyLeaf, ca: false,
            markers: [AppleMarkerOID.legacyReceiptSigning], digest: .sha1
        )
        .issued(for: keys.legacyReceiptSigning.publicKey(), by: iTunesStoreCA, issuerKey: keys.iTunesStoreCA)

        let xcodeName = DistinguishedName(commonName: "StoreKit Testing in Xcode")
        let xcodeReceipt = try Self.builder(xcodeName, 0x01, validity.xcode, ca: false).selfSigned(with: keys.xcodeRSA)
        let xcodeJWS = try Self.builder(xcodeName, 0x02, validity.xcode, ca: false).selfSigned(with: keys.xcodeEC)

        let developerReceiptSigning = try Self.builder(
            apple("iPhone Developer: Mallory (AB12CD34EF)", wwdrUnit),
            0x66, validity.receiptLeaves, ca: false
        )
        .issued(for: keys.receiptSigning.publicKey(), by: wwdr, issuerKey: keys.wwdr)
        let developerJWSSigning = try Self.builder(
            apple("Apple Development: Mallory (AB12CD34EF)", wwdrUnit),
            0x67, validity.receiptLeaves, ca: false
        )
        .issued(for: keys.jwsSigning.publicKey(), by: wwdrG6, issuerKey: keys.wwdrG6)

        try self.init(
            keys: keys,
            certificates: [
                appleRoot, wwdr, receiptSigning, appleRootG3, wwdrG6, jwsSigning, iTunesStoreCA, legacyReceiptSigning,
                xcodeReceipt, xcodeJWS, developerReceiptSigning, developerJWSSigning,
            ])
    }

    /// From certificates in `certificateNames` order (what `load` reads back).
    init(keys: Keys, certificates: [X509Certificate]) throws {
        guard certificates.count == Self.certificateNames.count else {
            throw TestPKIError("expected \(Self.certificateNames.count) certificates, got \(certificates.count)")
        }
        self.keys = keys
        appleRoot = certificates[0]
        wwdr = certificates[1]
        receiptSigning = certificates[2]
        appleRootG3 = certificates[3]
        wwdrG6 = certificates[4]
        jwsSigning = certificates[5]
        iTunesStoreCA = certificates[6]
        legacyReceiptSigning = certificates[7]
        xcodeReceipt = certificates[8]
        xcodeJWS = certificates[9]
        developerReceiptSigning = certificates[10]
        developerJWSSigning = certificates[11]
    }

    private static func builder(
        _ subject: DistinguishedName, _ serial: UInt64, _ window: Window, ca: Bool,
        markers: [String] = [], digest: DigestAlgorithm = .sha256
    ) -> CertificateBuilder {
        var builder = CertificateBuilder(
            subject: subject, serialNumber: serial, notBefore: window.notBefore,
            notAfter: window.notAfter, isCertificateAuthority: ca)
        builder.digest = digest
        builder.extraExtensions = markers.map(CertificateExtension.marker)
        return builder
    }

    /// What `Rules/trust/apple` holds: the RSA root, the EC root and the iTunes Store CA.
    public var appleAnchors: [X509Certificate] { [appleRoot, appleRootG3, iTunesStoreCA] }

    public var appleAnchorsDER: [[UInt8]] { appleAnchors.map(\.der) }

    /// A trust store over `appleAnchors`.
    public func appleTrustStore() throws -> TrustStore {
        try TrustStore(anchors: appleAnchors)
    }

    /// The Play licensing public key as a `.pem` file holds it.
    public func googlePublicKeyPEM() throws -> String {
        try keys.google.publicKey().pem()
    }

    /// The Play licensing public key as Play Console shows it (a `.pub` file): one line of base64 DER.
    public func googlePublicKeyBase64() throws -> String {
        try keys.google.publicKey().base64DER()
    }
}
