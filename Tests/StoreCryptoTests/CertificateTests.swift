import IAPBasics
import StoreCrypto
import Testing

@Suite("Certificates")
struct CertificateTests {
    @Test("a certificate shows its names, serial number and validity window")
    func fields() throws {
        let world = try TestWorld.shared.get()
        let intermediate = world.intermediate
        #expect(intermediate.subject == "CN=Test Intermediate CA,O=Test Inc.,C=US")
        #expect(intermediate.issuer == "CN=Test Root CA,OU=Test Certification Authority,O=Test Inc.,C=US")
        #expect(intermediate.subjectCommonName == "Test Intermediate CA")
        #expect(intermediate.serialNumber == [0x01, 0x00, 0x00, 0x00, 0x01])
        #expect(world.leaf.serialNumber == [0x00, 0xFF])
        #expect(intermediate.notBefore == (try TestWorld.time("2010-01-01T00:00:00Z")))
        #expect(intermediate.notAfter == (try TestWorld.time("2023-02-07T21:48:47Z")))
        #expect(intermediate.issuerNameDER == world.root.subjectNameDER)
        #expect(world.root.isSelfIssued)
        #expect(!intermediate.isSelfIssued)
    }

    @Test("validity past 2049 is written and read back as GeneralizedTime")
    func farFuture() throws {
        let world = try TestWorld.shared.get()
        let builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Long-lived"), serialNumber: 9,
            notBefore: try TestWorld.time("1999-12-31T23:59:59Z"),
            notAfter: try TestWorld.time("2060-06-30T12:00:00Z"), isCertificateAuthority: true)
        let certificate = try builder.selfSigned(with: world.ecKey)
        #expect(certificate.notBefore == (try TestWorld.time("1999-12-31T23:59:59Z")))
        #expect(certificate.notAfter == (try TestWorld.time("2060-06-30T12:00:00Z")))
    }

    @Test("a UTF-8 name is shown as written")
    func utf8Name() throws {
        let world = try TestWorld.shared.get()
        let builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Zürich, Prüfstelle"), serialNumber: 5,
            notBefore: try TestWorld.time("2020-01-01T00:00:00Z"),
            notAfter: try TestWorld.time("2021-01-01T00:00:00Z"), isCertificateAuthority: false)
        let certificate = try builder.selfSigned(with: world.ecKey)
        #expect(certificate.subjectCommonName == "Zürich, Prüfstelle")
        #expect(certificate.subject == "CN=Zürich\\, Prüfstelle")
    }

    @Test("DER read back is byte-identical, and one or several PEM blocks parse in order")
    func derAndPEM() throws {
        let world = try TestWorld.shared.get()
        let reparsed = try X509Certificate(der: world.leaf.der)
        #expect(reparsed == world.leaf)
        #expect(reparsed.der == world.leaf.der)
        let pem = [world.leaf, world.intermediate, world.root].map { certificate in
            "-----BEGIN CERTIFICATE-----\n" + Base64.encode(certificate.der) + "\n-----END CERTIFICATE-----\n"
        }.joined(separator: "some comment between blocks\n")
        let parsed = try X509Certificate.parsePEM(pem)
        #expect(parsed.map(\.subject) == [world.leaf.subject, world.intermediate.subject, world.root.subject])
        #expect(try X509Certificate.parseFile(Array(pem.utf8)).count == 3)
        #expect(try X509Certificate.parseFile(world.root.der) == [world.root])
    }

    @Test("garbage certificate bytes are a bad-certificate error, never a crash")
    func garbage() throws {
        let der = try TestWorld.shared.get().leaf.der
        let inputs: [[UInt8]] = [
            [], [0x30], Array(der.prefix(200)), der + [0x00], Array(repeating: 0xFF, count: 64),
            Array(der.dropLast()),
        ]
        for bytes in inputs {
            #expect(
                performing: { try X509Certificate(der: bytes) },
                throws: { ($0 as? CryptoError)?.code == .badCertificate })
        }
        #expect(throws: CryptoError.self) { try X509Certificate.parsePEM("no certificate here") }
        #expect(throws: CryptoError.self) {
            try X509Certificate.parsePEM("-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: CryptoError.self) { try X509Certificate.parseFile(Array("-----BEGIN junk".utf8)) }
    }

    @Test("a damaged second PEM block fails the file instead of being dropped silently")
    func damagedSecondBlock() throws {
        let world = try TestWorld.shared.get()
        let good = "-----BEGIN CERTIFICATE-----\n" + Base64.encode(world.root.der) + "\n-----END CERTIFICATE-----\n"
        let bad = "-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n"
        #expect(throws: CryptoError.self) { try X509Certificate.parsePEM(good + bad) }
    }

    @Test("Apple's marker OIDs are found where present and missed where absent")
    func markerOIDs() throws {
        let world = try TestWorld.shared.get()
        #expect(world.leaf.hasExtension(oid: AppleMarkerOID.receiptSigning))
        #expect(!world.leaf.hasExtension(oid: AppleMarkerOID.wwdrIntermediate))
        #expect(world.intermediate.hasExtension(oid: AppleMarkerOID.wwdrIntermediate))
        #expect(!world.root.hasExtension(oid: AppleMarkerOID.receiptSigning))
        #expect(world.root.hasExtension(oid: "2.5.29.19"))
        #expect(!world.root.hasExtension(oid: "not an oid"))
    }

    @Test("a PKCS#7 signer's issuer and serial number pick its certificate and no other")
    func issuerAndSerial() throws {
        let world = try TestWorld.shared.get()
        let leaf = world.leaf
        #expect(leaf.matches(issuerNameDER: leaf.issuerNameDER, serialNumber: leaf.serialNumber))
        #expect(!leaf.matches(issuerNameDER: leaf.issuerNameDER, serialNumber: [0x01]))
        #expect(!leaf.matches(issuerNameDER: world.root.issuerNameDER, serialNumber: leaf.serialNumber))
        #expect(!leaf.matches(issuerNameDER: [0x30, 0x80, 0xFF], serialNumber: leaf.serialNumber))
        #expect(!world.intermediate.matches(issuerNameDER: leaf.issuerNameDER, serialNumber: leaf.serialNumber))
    }

    @Test("a certificate's public key verifies what its private key signed")
    func certificateKey() throws {
        let world = try TestWorld.shared.get()
        let data = Array("receipt payload".utf8)
        let signature = try world.leafKey.signRSA(data, digest: .sha256)
        #expect(try world.leaf.publicKey().verifyRSA(signature: signature, over: data, digest: .sha256) == .valid)
        #expect(try world.xcode.publicKey().kind == .ecP256)
    }

    @Test("an extension OID that is not dotted text cannot be built")
    func badExtensionOID() throws {
        let world = try TestWorld.shared.get()
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "x"), serialNumber: 1,
            notBefore: try TestWorld.time("2020-01-01T00:00:00Z"),
            notAfter: try TestWorld.time("2021-01-01T00:00:00Z"), isCertificateAuthority: false)
        builder.extraExtensions = [.marker("1.2.840.113635.100.6.11.1"), .marker("apple")]
        #expect(
            performing: { try builder.selfSigned(with: world.ecKey) },
            throws: { ($0 as? CryptoError)?.code == .unsupported })
    }
}

@Suite("Certificate cache")
struct CertificateCacheTests {
    @Test("the same DER gives the same parsed certificate, garbage still an error")
    func reuse() throws {
        let world = try TestWorld.shared.get()
        let cache = CertificateCache(capacity: 2)
        let first = try cache.certificate(der: world.leaf.der)
        #expect(try cache.certificate(der: world.leaf.der) === first)
        #expect(try cache.certificate(der: world.root.der) == world.root)
        #expect(try cache.certificate(der: world.intermediate.der) == world.intermediate)
        #expect(try cache.certificate(der: world.leaf.der) == world.leaf)
        #expect(throws: CryptoError.self) { try cache.certificate(der: [0x30, 0x00]) }
    }
}
