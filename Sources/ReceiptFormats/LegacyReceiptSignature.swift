import IAPBasics

/// The `signature` blob of an iOS 6 transaction receipt, split into its parts.
///
/// formats.md §2 (CargoBay `CBCheckReceiptSecurity`; openssl-notes.md):
///   version (1 byte, 0x02) ‖ RSA signature ‖ certificate length (4 bytes, big-endian) ‖ leaf certificate DER
/// The signature is 128 bytes for Apple's 1024-bit key; another RSA size is accepted only
/// when the length field after it then counts exactly the bytes that are left.
enum LegacyReceiptSignature {
    static let version: UInt8 = 0x02
    static let signatureLengths = [128, 256, 384, 512]

    /// `offset` is where the blob's text lies in the receipt, for errors.
    static func split(_ blob: [UInt8], limits: Limits, offset: Int) throws(DecodeError)
        -> (signature: [UInt8], certificate: [UInt8])
    {
        guard let first = blob.first else {
            throw DecodeError("bad-signature", "the signature is empty", at: offset)
        }
        guard first == version else {
            throw DecodeError("bad-signature", "signature version \(first) is not 2", at: offset)
        }
        for length in signatureLengths {
            let lengthField = 1 + length
            guard blob.count >= lengthField + 4 else { continue }
            var declared = 0
            for byte in blob[lengthField..<(lengthField + 4)] { declared = declared << 8 | Int(byte) }
            let certificateStart = lengthField + 4
            guard declared > 0, declared == blob.count - certificateStart else { continue }
            let certificate = Array(blob[certificateStart...])
            try checkCertificate(certificate, limits: limits, offset: offset)
            return (Array(blob[1..<lengthField]), certificate)
        }
        throw DecodeError(
            "bad-signature",
            "no RSA signature length leaves a certificate length that matches the \(blob.count)-byte blob",
            at: offset)
    }

    /// The certificate must be one complete DER SEQUENCE, its own length telling the truth.
    private static func checkCertificate(_ der: [UInt8], limits: Limits, offset: Int) throws(DecodeError) {
        do throws(DecodeError) {
            try ASN1Reader.withReader(over: der, limits: limits) { (reader) throws(DecodeError) in
                _ = try reader.read(.sequence)
                try reader.finish()
            }
        } catch {
            throw DecodeError(
                "bad-signature", "the signer certificate is not one DER value: \(error.reason)", at: offset)
        }
    }
}
