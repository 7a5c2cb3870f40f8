/// An extension given by dotted OID and the DER of its value (the `extnValue` contents).
public struct CertificateExtension: Sendable, Equatable {
    public var oid: String
    public var critical: Bool
    public var valueDER: [UInt8]

    public init(oid: String, critical: Bool = false, valueDER: [UInt8]) {
        self.oid = oid
        self.critical = critical
        self.valueDER = valueDER
    }

    /// Apple's role markers: a non-critical extension whose value is ASN.1 NULL (05 00).
    public static func marker(_ oid: String) -> CertificateExtension {
        CertificateExtension(oid: oid, critical: false, valueDER: [0x05, 0x00])
    }
}
