import ReceiptFormats

/// Wraps content in a PKCS#7 SignedData ContentInfo the way Apple signs receipts: content
/// embedded, the identity's certificates, one signer named by issuer and serial number, no
/// signed attributes, signature algorithm rsaEncryption over the content octets.
///
/// RFC 5652 §3, §5 (RFC 2315 §7, §9):
/// ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version INTEGER, digestAlgorithms SET OF AlgorithmIdentifier,
///                           encapContentInfo SEQUENCE { eContentType OID, eContent [0] EXPLICIT OCTET STRING },
///                           certificates [0] IMPLICIT SET OF Certificate, signerInfos SET OF SignerInfo }
/// SignerInfo ::= SEQUENCE { version INTEGER, sid IssuerAndSerialNumber, digestAlgorithm AlgorithmIdentifier,
///                           signatureAlgorithm AlgorithmIdentifier, signature OCTET STRING }
public enum DERSignedDataWriter {
    /// Xcode splits its constructed eContent into segments; any size shows the joining works.
    static let xcodeSegmentLength = 1_000

    public static func contentInfo(
        content: [UInt8], identity: SigningIdentity,
        lengths: DERWriter.Lengths = .definite
    ) throws -> [UInt8] {
        let signature = try identity.sign(content)
        let (issuer, serial) = signerName(identity.certificates.first)
        var writer = DERWriter(lengths: lengths)
        try writer.writeConstructed(DERWriter.sequence) { info in
            try info.writeObjectIdentifier(PKCS7.signedDataOID)
            try info.writeConstructed(DERWriter.contextSpecific(0)) { explicit in
                try explicit.writeConstructed(DERWriter.sequence) { signedData in
                    signedData.writeInteger(1)
                    var algorithms = DERWriter()
                    try writeAlgorithm(identity.digestAlgorithmOID, to: &algorithms)
                    signedData.writeSetOf([algorithms.bytes])
                    try signedData.writeConstructed(DERWriter.sequence) { encap in
                        try encap.writeObjectIdentifier(PKCS7.dataOID)
                        encap.writeConstructed(DERWriter.contextSpecific(0)) { eContent in
                            switch lengths {
                            case .definite: eContent.writeOctetString(content)
                            case .indefinite:
                                eContent.writeSegmentedOctetString(content, segmentLength: xcodeSegmentLength)
                            }
                        }
                    }
                    if !identity.certificates.isEmpty {
                        signedData.writeConstructed(DERWriter.contextSpecific(0)) { certificates in
                            for certificate in identity.certificates { certificates.writeRaw(certificate) }
                        }
                    }
                    var signer = DERWriter(lengths: lengths)
                    try signer.writeConstructed(DERWriter.sequence) { info in
                        info.writeInteger(1)
                        info.writeConstructed(DERWriter.sequence) { sid in
                            sid.writeRaw(issuer)
                            sid.writeDefinite(0x02, serial)
                        }
                        try writeAlgorithm(identity.digestAlgorithmOID, to: &info)
                        try writeAlgorithm(PKCS7.rsaEncryptionOID, to: &info)
                        info.writeOctetString(signature)
                    }
                    signedData.writeSetOf([signer.bytes])
                }
            }
        }
        return writer.bytes
    }

    // AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters NULL }
    private static func writeAlgorithm(_ oid: String, to writer: inout DERWriter) throws {
        try writer.writeConstructed(DERWriter.sequence) { algorithm in
            try algorithm.writeObjectIdentifier(oid)
            algorithm.writeNull()
        }
    }

    /// The leaf's issuer and serial; a test's stand-in certificate (any DER) or none gets
    /// an empty Name and serial 1.
    private static func signerName(_ leaf: [UInt8]?) -> (issuer: [UInt8], serial: [UInt8]) {
        if let leaf, let name = try? PKCS7.issuerAndSerial(ofCertificate: leaf) {
            return name
        }
        return ([0x30, 0x00], [0x01])
    }
}
