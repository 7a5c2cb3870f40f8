import COpenSSL
import IAPBasics

/// One X.509 certificate, read from DER or PEM, with the fields screening looks at.
///
/// `@unchecked Sendable`: the `X509` is never modified after init, and its extension
/// cache is filled during init, so concurrent reads and verifications are safe.
public final class X509Certificate: @unchecked Sendable, Equatable, CustomStringConvertible {
    let handle: OpaquePointer
    /// The exact DER bytes.
    public let der: [UInt8]
    /// Subject and issuer as RFC 2253 text (`CN=…,O=…,C=US`), UTF-8 kept.
    public let subject: String
    public let issuer: String
    public let subjectCommonName: String?
    /// DER `Name` of the issuer, as a PKCS#7 `IssuerAndSerialNumber` names it.
    public let issuerNameDER: [UInt8]
    public let subjectNameDER: [UInt8]
    /// Content octets of the DER INTEGER serial number (two's complement, minimal).
    public let serialNumber: [UInt8]
    public let notBefore: Timestamp
    public let notAfter: Timestamp

    /// Takes ownership of `handle` (frees it when the fields cannot be read).
    init(owning handle: OpaquePointer, der: [UInt8]) throws(CryptoError) {
        let fields: CertificateFields
        do {
            fields = try CertificateFields(of: handle)
        } catch {
            X509_free(handle)
            throw error
        }
        self.handle = handle
        self.der = der
        self.subject = fields.subject
        self.issuer = fields.issuer
        self.subjectCommonName = fields.subjectCommonName
        self.issuerNameDER = fields.issuerNameDER
        self.subjectNameDER = fields.subjectNameDER
        self.serialNumber = fields.serialNumber
        self.notBefore = fields.notBefore
        self.notAfter = fields.notAfter
    }

    deinit { X509_free(handle) }

    /// From DER; bytes left over after the certificate are an error.
    public convenience init(der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard let end = cursor, end == base + buffer.count else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else {
            throw CryptoError.openSSL(.badCertificate, "not a DER certificate (or bytes left over after it)")
        }
        try self.init(owning: parsed, der: der)
    }

    /// Every `CERTIFICATE` block of a PEM text, in order; none at all is an error.
    public static func parsePEM(_ text: String) throws(CryptoError) -> [X509Certificate] {
        let bio = try MemoryBIO(reading: Array(text.utf8))
        var certificates: [X509Certificate] = []
        // The end of the loop is judged by the queue: start it empty.
        OpenSSLErrorQueue.clear()
        while let next = PEM_read_bio_X509(bio.handle, nil, refusePassphrase, nil) {
            let der: [UInt8]
            do {
                der = try DEREncoding.encode("certificate") { i2d_X509(next, $0) }
            } catch {
                X509_free(next)
                throw error
            }
            certificates.append(try X509Certificate(owning: next, der: der))
        }
        // The loop ends on "no start line" once the text is used up; anything else is damage.
        let last = ERR_peek_last_error()
        let cleanEnd = ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE
        guard !certificates.isEmpty, last == 0 || cleanEnd else {
            throw CryptoError.openSSL(
                .badCertificate,
                certificates.isEmpty ? "no PEM certificate found" : "damaged PEM certificate")
        }
        OpenSSLErrorQueue.clear()
        return certificates
    }

    /// A certificate file's contents: PEM (one or more) when it holds `-----BEGIN`, else one DER certificate.
    public static func parseFile(_ bytes: [UInt8]) throws(CryptoError) -> [X509Certificate] {
        let marker = Array("-----BEGIN".utf8)
        let isPEM =
            bytes.count >= marker.count
            && (0...(bytes.count - marker.count)).contains { start in
                bytes[start..<(start + marker.count)].elementsEqual(marker)
            }
        if isPEM {
            return try parsePEM(String(decoding: bytes, as: UTF8.self))
        }
        return [try X509Certificate(der: bytes)]
    }

    /// The subject's public key.
    public func publicKey() throws(CryptoError) -> PublicKey {
        guard let key = X509_get_pubkey(handle) else {
            throw CryptoError.openSSL(.badKey, "the certificate's public key cannot be read")
        }
        return PublicKey(owning: key)
    }

    /// Whether an extension with this dotted OID is present (critical or not).
    /// Apple marks its certificates' roles with private OIDs OpenSSL does not know.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(handle, object, -1) >= 0
    }

    /// Whether this is the certificate a PKCS#7 signer names by issuer and serial number.
    /// The issuer matches byte for byte, or as OpenSSL compares names (canonical form).
    public func matches(issuerNameDER otherIssuer: [UInt8], serialNumber otherSerial: [UInt8]) -> Bool {
        guard otherSerial == serialNumber else { return false }
        if otherIssuer == issuerNameDER { return true }
        let parsed = otherIssuer.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_X509_NAME(nil, &cursor, buffer.count)
        }
        guard let name = parsed else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { X509_NAME_free(name) }
        return X509_NAME_cmp(name, X509_get_issuer_name(handle)) == 0
    }

    /// Whether subject and issuer are the same name (a root, or a test certificate).
    public var isSelfIssued: Bool { subjectNameDER == issuerNameDER }

    public static func == (a: X509Certificate, b: X509Certificate) -> Bool { a.der == b.der }

    public var description: String { subject }
}
