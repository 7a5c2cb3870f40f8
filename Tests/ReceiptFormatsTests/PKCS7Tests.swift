import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import Testing

private func failure(_ der: [UInt8]) -> DecodeError? {
    do {
        _ = try PKCS7.parse(der)
        return nil
    } catch {
        return error
    }
}

private func algorithm(_ oid: String, to writer: inout DERWriter) throws {
    try writer.writeConstructed(DERWriter.sequence) { algorithm in
        try algorithm.writeObjectIdentifier(oid)
        algorithm.writeNull()
    }
}

/// SignerInfo with issuerAndSerialNumber (or a subject key identifier) and optional signed attributes.
private func signerInfo(signedAttributes: [UInt8]? = nil, subjectKeyID: Bool = false) throws -> [UInt8] {
    var writer = DERWriter()
    try writer.writeConstructed(DERWriter.sequence) { info in
        info.writeInteger(subjectKeyID ? 3 : 1)
        if subjectKeyID {
            info.writeDefinite(0x80, [0x01, 0x02, 0x03])
        } else {
            info.writeConstructed(DERWriter.sequence) { sid in
                sid.writeRaw([0x30, 0x00])
                sid.writeInteger(42)
            }
        }
        try algorithm("2.16.840.1.101.3.4.2.1", to: &info)
        if let signedAttributes { info.writeRaw(signedAttributes) }
        try algorithm("1.2.840.113549.1.1.11", to: &info)
        info.writeOctetString([0xAB, 0xCD])
    }
    return writer.bytes
}

/// ContentInfo { signedData, [0] { SignedData } } assembled piece by piece.
private func contentInfo(
    contentType: String = PKCS7.dataOID, content: [UInt8]? = [0x31, 0x00],
    signers: [[UInt8]]
) throws -> [UInt8] {
    var writer = DERWriter()
    try writer.writeConstructed(DERWriter.sequence) { info in
        try info.writeObjectIdentifier(PKCS7.signedDataOID)
        try info.writeConstructed(DERWriter.contextSpecific(0)) { explicit in
            try explicit.writeConstructed(DERWriter.sequence) { signedData in
                signedData.writeInteger(1)
                try signedData.writeConstructed(DERWriter.set) { try algorithm("2.16.840.1.101.3.4.2.1", to: &$0) }
                try signedData.writeConstructed(DERWriter.sequence) { encap in
                    try encap.writeObjectIdentifier(contentType)
                    if let content {
                        encap.writeConstructed(DERWriter.contextSpecific(0)) { $0.writeOctetString(content) }
                    }
                }
                signedData.writeConstructed(DERWriter.set) { set in
                    for signer in signers { set.writeRaw(signer) }
                }
            }
        }
    }
    return writer.bytes
}

@Suite("PKCS#7 SignedData")
struct PKCS7Tests {
    @Test(
        "certificates, signer, algorithms, signature and content are kept exactly",
        arguments: [AppReceiptBuilder.Encoding.der, .xcodeBER])
    func signedDataParts(encoding: AppReceiptBuilder.Encoding) throws {
        var spec = try AppReceiptFixtures.fullSpec()
        spec.encoding = encoding
        let chain = try AppReceiptFixtures.chain()
        let identity = SigningIdentity(certificates: chain, digestAlgorithmOID: "1.3.14.3.2.26") { content in
            Array(content.prefix(128).reversed())
        }
        let payload = AppReceiptBuilder.payload(spec)
        let parsed = try PKCS7.parse(AppReceiptBuilder.build(spec, signedBy: identity))
        let signed = parsed.signed
        #expect(signed.certificates == chain)
        #expect(signed.digestAlgorithm == "1.3.14.3.2.26")
        #expect(signed.signatureAlgorithm == PKCS7.rsaEncryptionOID)
        #expect(signed.signedAttributes == nil)
        #expect(signed.signature == Array(payload.prefix(128).reversed()))
        #expect(signed.content == payload)
        let leaf = try PKCS7.issuerAndSerial(ofCertificate: chain[0])
        #expect(signed.signerIssuer == leaf.issuer)
        #expect(signed.signerSerial == [0x71])
    }

    @Test("a certificate's issuer and serial number are read from its TBSCertificate")
    func certificateIdentity() throws {
        let certificate = try AppReceiptFixtures.certificate(serial: 0x71, issuer: "Test WWDR")
        let (issuer, serial) = try PKCS7.issuerAndSerial(ofCertificate: certificate)
        #expect(serial == [0x71])
        #expect(issuer.first == 0x30)
        #expect(String(decoding: issuer.suffix(9), as: UTF8.self) == "Test WWDR")
        #expect(throws: DecodeError.self) { try PKCS7.issuerAndSerial(ofCertificate: [0x30, 0x03, 0x02, 0x01, 0x01]) }
    }

    @Test("signed attributes are kept re-tagged as the SET the signature covers")
    func signedAttributes() throws {
        // [0] IMPLICIT SET OF Attribute { SEQUENCE { OID contentType, SET { OID data } } }
        let attribute: [UInt8] = [
            0x30, 0x18, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03,
            0x31, 0x0B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01,
        ]
        let implicit = [0xA0, UInt8(attribute.count)] + attribute
        let parsed = try PKCS7.parse(contentInfo(signers: [signerInfo(signedAttributes: implicit)]))
        #expect(parsed.signed.signedAttributes == [0x31, UInt8(attribute.count)] + attribute)
        #expect(parsed.signed.signatureAlgorithm == "1.2.840.113549.1.1.11")
        #expect(parsed.signed.signerSerial == [42])
        #expect(parsed.signed.signerIssuer == [0x30, 0x00])
        #expect(parsed.signed.certificates.isEmpty)
    }

    @Test("a SignedData without exactly one issuer-and-serial signer is refused")
    func signerCount() throws {
        #expect(failure(try contentInfo(signers: []))?.code == "no-signer")
        #expect(failure(try contentInfo(signers: [signerInfo(), signerInfo()]))?.code == "multiple-signers")
        #expect(failure(try contentInfo(signers: [signerInfo(subjectKeyID: true)]))?.code == "unsupported-signer-id")
    }

    @Test("detached or non-data content is refused")
    func content() throws {
        #expect(failure(try contentInfo(content: nil, signers: [signerInfo()]))?.code == "no-content")
        let other = try contentInfo(contentType: "1.2.840.113549.1.9.16.1.4", signers: [signerInfo()])
        #expect(failure(other)?.code == "not-data-content")
    }
}
