import COpenSSL
import IAPBasics

/// Makes X.509 v3 certificates for tests and the `samples` command: a name, a serial, a
/// validity window, CA or end-entity constraints, key identifiers and extra extensions.
public struct CertificateBuilder: Sendable {
    public var subject: DistinguishedName
    public var serialNumber: UInt64
    public var notBefore: Timestamp
    public var notAfter: Timestamp
    /// CA: `basicConstraints critical CA:TRUE` + `keyUsage critical keyCertSign, cRLSign`;
    /// otherwise `basicConstraints critical CA:FALSE` + `keyUsage critical digitalSignature`.
    public var isCertificateAuthority: Bool
    /// The digest of the issuer's signature over the certificate.
    public var digest: DigestAlgorithm = .sha256
    /// Subject key identifier, and authority key identifier when issued by another certificate.
    public var includesKeyIdentifiers: Bool = true
    public var extraExtensions: [CertificateExtension] = []

    public init(
        subject: DistinguishedName, serialNumber: UInt64, notBefore: Timestamp, notAfter: Timestamp,
        isCertificateAuthority: Bool
    ) {
        self.subject = subject
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCertificateAuthority = isCertificateAuthority
    }

    /// A certificate that names and signs itself.
    public func selfSigned(with key: PrivateKey) throws(CryptoError) -> X509Certificate {
        try build(subjectKey: key.publicKey(), issuerCertificate: nil, issuerKey: key)
    }

    /// A certificate for `subjectKey`, issued and signed by `issuer` with `issuerKey`.
    public func issued(
        for subjectKey: PublicKey, by issuer: X509Certificate,
        issuerKey: PrivateKey
    ) throws(CryptoError) -> X509Certificate {
        try build(subjectKey: subjectKey, issuerCertificate: issuer, issuerKey: issuerKey)
    }

    private func build(
        subjectKey: PublicKey, issuerCertificate: X509Certificate?,
        issuerKey: PrivateKey
    ) throws(CryptoError) -> X509Certificate {
        guard let certificate = X509_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a certificate")
        }
        defer { X509_free(certificate) }
        let name = try NameBuilder(subject)
        guard X509_set_version(certificate, 2) == 1,  // 2 means v3
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serialNumber) == 1,
            X509_set_subject_name(certificate, name.handle) == 1,
            X509_set_issuer_name(certificate, issuerCertificate.map { X509_get_subject_name($0.handle) } ?? name.handle)
                == 1,
            X509_set_pubkey(certificate, subjectKey.handle) == 1
        else {
            throw CryptoError.openSSL(.operationFailed, "cannot fill in the certificate for \(subject.commonName)")
        }
        try setTime(X509_getm_notBefore(certificate), notBefore, "notBefore")
        try setTime(X509_getm_notAfter(certificate), notAfter, "notAfter")
        try addStandardExtensions(to: certificate, issuer: issuerCertificate?.handle)
        for extra in extraExtensions {
            try add(extra, to: certificate)
        }
        guard X509_sign(certificate, issuerKey.handle, digest.evpMD) > 0 else {
            throw CryptoError.openSSL(.operationFailed, "cannot sign the certificate for \(subject.commonName)")
        }
        let der = try DEREncoding.encode("certificate") { i2d_X509(certificate, $0) }
        // Read back from DER: a built certificate behaves exactly like a received one.
        return try X509Certificate(der: der)
    }

    private func setTime(_ field: UnsafeMutablePointer<ASN1_TIME>?, _ time: Timestamp, _ what: String)
        throws(CryptoError)
    {
        guard let seconds = time_t(exactly: time.flooredEpochSeconds), ASN1_TIME_set(field, seconds) != nil else {
            throw CryptoError.openSSL(.operationFailed, "cannot set \(what) to \(time)")
        }
    }

    private func addStandardExtensions(to certificate: OpaquePointer, issuer: OpaquePointer?) throws(CryptoError) {
        var context = X509V3_CTX()
        // No config database: the values below are complete in themselves.
        X509V3_set_ctx(&context, issuer ?? certificate, certificate, nil, nil, 0)
        var standard: [(Int32, String)] =
            isCertificateAuthority
            ? [(NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign")]
            : [(NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature")]
        if includesKeyIdentifiers {
            standard.append((NID_subject_key_identifier, "hash"))
            if issuer != nil { standard.append((NID_authority_key_identifier, "keyid:always")) }
        }
        for (nid, value) in standard {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw CryptoError.openSSL(.operationFailed, "cannot make extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else {
                throw CryptoError.openSSL(.operationFailed, "cannot add extension \(value)")
            }
        }
    }

    private func add(_ extra: CertificateExtension, to certificate: OpaquePointer) throws(CryptoError) {
        guard let object = OBJ_txt2obj(extra.oid, 1) else {
            throw CryptoError.openSSL(.unsupported, "not a dotted OID: \(extra.oid)")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate an extension value")
        }
        defer { ASN1_OCTET_STRING_free(value) }
        guard let length = Int32(exactly: extra.valueDER.count),
            extra.valueDER.withUnsafeBufferPointer({ ASN1_OCTET_STRING_set(value, $0.baseAddress, length) }) == 1,
            let ext = X509_EXTENSION_create_by_OBJ(nil, object, extra.critical ? 1 : 0, value)
        else {
            throw CryptoError.openSSL(.operationFailed, "cannot make extension \(extra.oid)")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(certificate, ext, -1) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot add extension \(extra.oid)")
        }
    }
}

/// An `X509_NAME` being assembled from a `DistinguishedName`.
private final class NameBuilder {
    let handle: OpaquePointer

    init(_ name: DistinguishedName) throws(CryptoError) {
        guard let handle = X509_NAME_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a name")
        }
        self.handle = handle
        for (field, value) in name.attributes {
            let added = Array(value.utf8).withUnsafeBufferPointer { bytes -> Int32 in
                guard let count = Int32(exactly: bytes.count) else { return 0 }
                return X509_NAME_add_entry_by_txt(handle, field, MBSTRING_UTF8, bytes.baseAddress, count, -1, 0)
            }
            guard added == 1 else {
                throw CryptoError.openSSL(.operationFailed, "cannot set \(field)=\(value)")
            }
        }
    }

    deinit { X509_NAME_free(handle) }
}
