import IAPBasics

/// Apple app receipts (iOS 7+ / macOS): a PKCS#7 SignedData whose content is the receipt
/// payload, DER from the App Store or BER from Xcode (formats.md §1).
public enum AppReceiptDecoder {
    /// Decodes a PKCS#7 app receipt from its DER/BER bytes (base64 already removed).
    /// Every error names an offset in `der`.
    public static func decode(der: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        let parsed = try PKCS7.parse(der, limits: limits)
        var receipt = Receipt(kind: .appleAppReceipt, platform: .ios, signed: .pkcs7(parsed.signed))
        do throws(DecodeError) {
            try ASN1Reader.withReader(
                over: parsed.content.bytes, limits: limits,
                depth: parsed.contentDepth
            ) { (payload) throws(DecodeError) in
                try AppReceiptPayload.read(&payload, into: &receipt, limits: limits)
                try payload.finish()
            }
        } catch {
            throw parsed.content.inSource(error)
        }
        return receipt
    }
}
