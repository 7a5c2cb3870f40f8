import IAPBasics
import JSONText

/// iOS 6 transaction receipts (`SKPaymentTransaction.transactionReceipt`).
///
/// formats.md §2 (voltrue2/in-app-purchase and CargoBay test receipts):
///   { "signature" = "<base64 blob>"; "purchase-info" = "<base64 of an inner plist>";
///     "environment" = "Sandbox"; "pod" = "100"; "signing-status" = "0"; }
/// `environment` is absent on production receipts, and it sits outside what is signed
/// (the signature covers `purchase-info` only): it is kept as written, nil when absent,
/// never taken for `Production`, and nothing verifies it (`Receipt.environmentIsSigned`).
/// `signature` may be missing too (a receipt some server stripped): the receipt is read,
/// and its check says "no signature".
public enum LegacyReceiptDecoder {
    /// Decodes the outer plist (the receipt's base64 already removed). Errors name offsets
    /// in `plist`; an error inside `purchase-info` points into its base64 text there.
    public static func decode(plist: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Receipt {
        let outer = try OldStylePlist.parse(plist, limits: limits)
        guard let entries = outer.entries else {
            throw DecodeError("not-legacy-receipt", "an iOS 6 receipt is a dictionary", at: outer.offset)
        }
        let purchaseInfoText = try requiredString(outer, "purchase-info")
        let purchaseInfo = try base64(purchaseInfoText, limits: limits)
        // Without a signature (absent or empty) the receipt is still read: its signature
        // check then says `invalid`, "no signature", instead of the receipt being refused.
        var signed = LegacySigned(
            signedData: [LegacyReceiptSignature.version] + purchaseInfo, signature: nil,
            certificate: nil)
        if let signatureText = try optionalValue(outer, "signature"), signatureText.string?.isEmpty == false {
            let blob = try base64(signatureText, limits: limits)
            let parts = try LegacyReceiptSignature.split(blob, limits: limits, offset: signatureText.offset)
            signed.signature = parts.signature
            signed.certificate = parts.certificate
        }

        var receipt = Receipt(kind: .appleLegacyReceipt, platform: .ios, signed: .legacy(signed))
        let environment = try optionalString(outer, "environment")
        receipt.environment = environment.flatMap { $0.isEmpty ? nil : $0 }
        for entry in entries where !["purchase-info", "signature", "environment"].contains(entry.key) {
            if let text = entry.value.string {
                receipt.extras.append((LegacyReceiptPurchaseInfo.jsonKey(entry.key), .string(text)))
            }
        }

        do throws(DecodeError) {
            let info = try OldStylePlist.parse(purchaseInfo, limits: limits)
            try LegacyReceiptPurchaseInfo.read(info, into: &receipt)
        } catch {
            // Point at the base64 quad that carries the offending byte.
            let textOffset = purchaseInfoText.offset + 1 + error.offset / 3 * 4
            throw DecodeError(error.code, "in purchase-info: \(error.reason)", at: textOffset)
        }
        return receipt
    }

    private static func requiredString(_ dictionary: OldStylePlist, _ key: String) throws(DecodeError) -> OldStylePlist
    {
        guard let value = dictionary[key] else {
            throw DecodeError("missing-field", "the receipt has no '\(key)'", at: dictionary.offset)
        }
        guard value.string != nil else {
            throw DecodeError("bad-field", "'\(key)' must be a string", at: value.offset)
        }
        return value
    }

    private static func optionalString(_ dictionary: OldStylePlist, _ key: String) throws(DecodeError) -> String? {
        try optionalValue(dictionary, key)?.string
    }

    /// The string value of `key`, if the key is there.
    private static func optionalValue(_ dictionary: OldStylePlist, _ key: String) throws(DecodeError) -> OldStylePlist?
    {
        guard let value = dictionary[key] else { return nil }
        guard value.string != nil else {
            throw DecodeError("bad-field", "'\(key)' must be a string", at: value.offset)
        }
        return value
    }

    /// Base64 inside a quoted plist string: errors point into the text after the quote.
    private static func base64(_ value: OldStylePlist, limits: Limits) throws(DecodeError) -> [UInt8] {
        do throws(DecodeError) {
            return try Base64.decode(value.string ?? "", maxBytes: limits.maxPayloadBytes)
        } catch {
            throw error.shifted(by: value.offset + 1)
        }
    }
}
