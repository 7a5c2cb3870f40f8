/// A key and its certificate chain, as the builders need them: they never see OpenSSL.
/// `sign` signs the given bytes with the leaf's key in the identity's algorithm
/// (RSA PKCS#1 v1.5 with SHA-1 or SHA-256, or ES256 returning raw r ‖ s).
public struct SigningIdentity: Sendable {
    /// DER certificates, leaf first (may be empty, e.g. a Google key has none).
    public var certificates: [[UInt8]]
    /// Dotted OID of the digest `sign` uses (`1.3.14.3.2.26` SHA-1, `2.16.840.1.101.3.4.2.1` SHA-256).
    public var digestAlgorithmOID: String
    public var sign: @Sendable ([UInt8]) throws -> [UInt8]

    public init(
        certificates: [[UInt8]], digestAlgorithmOID: String, sign: @escaping @Sendable ([UInt8]) throws -> [UInt8]
    ) {
        self.certificates = certificates
        self.digestAlgorithmOID = digestAlgorithmOID
        self.sign = sign
    }

    /// Signs with zeros of the given length: for decoder tests that never verify.
    public static func unverifiable(
        signatureLength: Int = 256, certificates: [[UInt8]] = [],
        digestAlgorithmOID: String = "2.16.840.1.101.3.4.2.1"
    ) -> SigningIdentity {
        SigningIdentity(certificates: certificates, digestAlgorithmOID: digestAlgorithmOID) { _ in
            [UInt8](repeating: 0, count: signatureLength)
        }
    }
}
