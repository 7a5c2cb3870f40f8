import IAPBasics

extension PKCS7 {
    /// A certificate's issuer (DER Name) and serial number (INTEGER content octets): what a
    /// SignerInfo's `issuerAndSerialNumber` names, to find the signer among the certificates
    /// or to write a SignerInfo for a certificate.
    ///
    /// RFC 5280 §4.1:
    /// Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, signatureAlgorithm AlgorithmIdentifier,
    ///                            signatureValue BIT STRING }
    /// TBSCertificate ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1, serialNumber INTEGER,
    ///                               signature AlgorithmIdentifier, issuer Name, … }
    public static func issuerAndSerial(
        ofCertificate der: [UInt8],
        limits: Limits = .standard
    ) throws(DecodeError) -> (issuer: [UInt8], serial: [UInt8]) {
        try ASN1Reader.withReader(over: der, limits: limits) { (reader) throws(DecodeError) -> ([UInt8], [UInt8]) in
            let certificate = try reader.read(.sequence)
            try reader.finish()
            var outer = try reader.contents(of: certificate)
            var tbs = try outer.contents(of: outer.read(.sequence))
            _ = try tbs.readOptional(.contextSpecific(0))
            let serial = try tbs.integerBytes(tbs.read(.integer))
            _ = try tbs.read(.sequence)
            let issuer = try tbs.read(.sequence)
            return (tbs.rawBytes(of: issuer), Array(serial))
        }
    }
}
