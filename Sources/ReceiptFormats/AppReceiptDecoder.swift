import IAPBasics

// PLACEHOLDER (being replaced by the ASN.1/PKCS#7 work): the entry point's shape only.
public enum AppReceiptDecoder {
    /// Decodes a PKCS#7 app receipt from its DER/BER bytes.
    public static func decode(der: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        throw DecodeError("unsupported", "app receipt decoding is not built yet", at: 0)
    }
}
