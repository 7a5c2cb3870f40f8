import IAPBasics
import StoreCrypto

/// Keys and certificates made once per test run and shared (RSA key generation is slow).
///
/// Windows: root 2000–2040, intermediate 2010–2023-02-07 (expired *now*, like Apple's
/// WWDR G1), leaf 2020–2022, so "inside every window" is 2021.
struct TestWorld: Sendable {
    static let shared = Result { try TestWorld() }

    let rootKey: PrivateKey
    let intermediateKey: PrivateKey
    let leafKey: PrivateKey
    let ecKey: PrivateKey
    let otherECKey: PrivateKey

    let root: X509Certificate
    let intermediate: X509Certificate
    let leaf: X509Certificate
    /// Same names as `root`, another key: what a forger would make.
    let impostorRoot: X509Certificate
    let impostorLeaf: X509Certificate
    /// Self-signed, like the StoreKit Testing in Xcode certificate.
    let xcode: X509Certificate

    struct BadTime: Error { let text: String }

    static func time(_ text: String) throws -> Timestamp {
        guard let stamp = Timestamp.parse(text) else { throw BadTime(text: text) }
        return stamp
    }

    init() throws {
        rootKey = try PrivateKey.generate(.rsa(bits: 2048))
        intermediateKey = try PrivateKey.generate(.rsa(bits: 2048))
        leafKey = try PrivateKey.generate(.rsa(bits: 2048))
        ecKey = try PrivateKey.generate(.ecP256)
        otherECKey = try PrivateKey.generate(.ecP256)

        var rootBuilder = CertificateBuilder(
            subject: DistinguishedName(
                commonName: "Test Root CA", organization: "Test Inc.",
                organizationalUnit: "Test Certification Authority", country: "US"),
            serialNumber: 2, notBefore: try Self.time("2000-01-01T00:00:00Z"),
            notAfter: try Self.time("2040-01-01T00:00:00Z"),
            isCertificateAuthority: true)
        root = try rootBuilder.selfSigned(with: rootKey)

        var intermediateBuilder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Test Intermediate CA", organization: "Test Inc.", country: "US"),
            serialNumber: 0x1_0000_0001, notBefore: try Self.time("2010-01-01T00:00:00Z"),
            notAfter: try Self.time("2023-02-07T21:48:47Z"), isCertificateAuthority: true)
        intermediateBuilder.extraExtensions = [.marker(AppleMarkerOID.wwdrIntermediate)]
        intermediate = try intermediateBuilder.issued(for: intermediateKey.publicKey(), by: root, issuerKey: rootKey)

        var leafBuilder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Test Receipt Signing", organization: "Test Inc.", country: "US"),
            serialNumber: 0xFF, notBefore: try Self.time("2020-01-01T00:00:00Z"),
            notAfter: try Self.time("2022-01-01T00:00:00Z"),
            isCertificateAuthority: false)
        leafBuilder.extraExtensions = [.marker(AppleMarkerOID.receiptSigning)]
        leaf = try leafBuilder.issued(for: leafKey.publicKey(), by: intermediate, issuerKey: intermediateKey)

        rootBuilder.serialNumber = 3
        impostorRoot = try rootBuilder.selfSigned(with: otherECKey)
        leafBuilder.serialNumber = 0x100
        impostorLeaf = try leafBuilder.issued(for: ecKey.publicKey(), by: impostorRoot, issuerKey: otherECKey)

        let xcodeBuilder = CertificateBuilder(
            subject: DistinguishedName(commonName: "StoreKit Testing in Xcode"), serialNumber: 1,
            notBefore: try Self.time("2020-01-01T00:00:00Z"), notAfter: try Self.time("2040-01-01T00:00:00Z"),
            isCertificateAuthority: false)
        xcode = try xcodeBuilder.selfSigned(with: ecKey)
    }
}
