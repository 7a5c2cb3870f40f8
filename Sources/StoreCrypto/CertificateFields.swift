import COpenSSL
import IAPBasics

/// The fields of an `X509` read once, as Swift values.
struct CertificateFields {
    var subject: String
    var issuer: String
    var subjectCommonName: String?
    var issuerNameDER: [UInt8]
    var subjectNameDER: [UInt8]
    var serialNumber: [UInt8]
    var notBefore: Timestamp
    var notAfter: Timestamp

    init(of certificate: OpaquePointer) throws(CryptoError) {
        // Fills the extension cache now, so later concurrent reads never write to it.
        _ = X509_check_purpose(certificate, -1, 0)
        OpenSSLErrorQueue.clear()
        guard let subjectName = X509_get_subject_name(certificate),
            let issuerName = X509_get_issuer_name(certificate)
        else {
            throw CryptoError.openSSL(.badCertificate, "certificate without subject or issuer")
        }
        subject = try CertificateFields.text(of: subjectName)
        issuer = try CertificateFields.text(of: issuerName)
        subjectCommonName = CertificateFields.commonName(of: subjectName)
        subjectNameDER = try DEREncoding.encode("subject name") { i2d_X509_NAME(subjectName, $0) }
        issuerNameDER = try DEREncoding.encode("issuer name") { i2d_X509_NAME(issuerName, $0) }
        guard let serial = X509_get0_serialNumber(certificate) else {
            throw CryptoError.openSSL(.badCertificate, "certificate without a serial number")
        }
        serialNumber = try CertificateFields.integerContent(
            DEREncoding.encode("serial number") { i2d_ASN1_INTEGER(serial, $0) })
        notBefore = try CertificateFields.timestamp(X509_get0_notBefore(certificate), "notBefore")
        notAfter = try CertificateFields.timestamp(X509_get0_notAfter(certificate), "notAfter")
    }

    /// RFC 2253 text without escaping bytes above 0x7F, so UTF-8 names stay readable.
    private static func text(of name: OpaquePointer) throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        // XN_FLAG_RFC2253 minus ASN1_STRFLGS_ESC_MSB (the composite macro does not import).
        let flags =
            UInt(ASN1_STRFLGS_ESC_2253) | UInt(ASN1_STRFLGS_ESC_CTRL) | UInt(ASN1_STRFLGS_UTF8_CONVERT)
            | UInt(ASN1_STRFLGS_DUMP_UNKNOWN) | UInt(ASN1_STRFLGS_DUMP_DER) | UInt(XN_FLAG_SEP_COMMA_PLUS)
            | UInt(XN_FLAG_DN_REV) | UInt(XN_FLAG_FN_SN) | UInt(XN_FLAG_DUMP_UNKNOWN_FIELDS)
        guard X509_NAME_print_ex(bio.handle, name, 0, flags) >= 0 else {
            throw CryptoError.openSSL(.badCertificate, "unreadable distinguished name")
        }
        return bio.text()
    }

    private static func commonName(of name: OpaquePointer) -> String? {
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard let utf8, let count = Int(exactly: length), count >= 0 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: count), as: UTF8.self)
    }

    /// The content octets of a DER INTEGER (tag 02, short or long length form).
    private static func integerContent(_ der: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard der.count >= 2, der[0] == 0x02 else {
            throw CryptoError(.badCertificate, "serial number is not an INTEGER")
        }
        var headerLength = 2
        if der[1] & 0x80 != 0 {
            let lengthBytes = Int(der[1] & 0x7F)
            headerLength = 2 + lengthBytes
        }
        guard headerLength <= der.count else {
            throw CryptoError(.badCertificate, "serial number is truncated")
        }
        return Array(der[headerLength...])
    }

    private static func timestamp(_ time: UnsafePointer<ASN1_TIME>?, _ field: String) throws(CryptoError) -> Timestamp {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
            throw CryptoError.openSSL(.badCertificate, "unreadable \(field) time")
        }
        let days = Timestamp.daysFromCivil(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1,
            day: Int(parts.tm_mday))
        let seconds =
            Int64(days) * 86_400 + Int64(parts.tm_hour) * 3600 + Int64(parts.tm_min) * 60 + Int64(parts.tm_sec)
        guard let stamp = Timestamp(seconds: seconds) else {
            throw CryptoError(.badCertificate, "\(field) time is out of range")
        }
        return stamp
    }
}
