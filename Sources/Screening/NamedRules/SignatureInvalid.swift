/// `signature-invalid`: the receipt's signature or certificate chain does not verify against
/// `Rules/trust`; a stored verifyReceipt JSON contradicts the signed receipt it embeds (a
/// forgery: the evidence names the claim); or a Google purchase carries no signature.
/// Payloads that are unsigned by nature — a verifyReceipt JSON without its `latest_receipt`,
/// a StoreKit 2 transaction's decoded JSON without its JWS — are screened on their claims
/// unless a parameter asks to flag them. `unchecked` (no trust configured) never fires.
public enum SignatureInvalid: NamedRule {
    public static let id: RuleID = "signature-invalid"
    public static let defaultSeverity = Severity.critical
    public static let summary =
        "the signature or chain does not verify, the JSON contradicts its signed receipt, or a Google purchase is unsigned"
    public static let stage = RuleStage.receipt

    public static let flagUnsignedVerifyReceipt = RuleParameter(
        rule: id, "flag_unsigned_verify_receipt", default: 0, .yesNo,
        meaning: "also flag a stored verifyReceipt JSON that carries no signed receipt")
    public static let flagUnsignedDecodedPayload = RuleParameter(
        rule: id, "flag_unsigned_decoded_payload", default: 0, .yesNo,
        meaning: "also flag a StoreKit 2 transaction's decoded JSON stored without its JWS (`decode` says `unsigned`, "
            + "\"decoded transaction JSON, no JWS\")")
    public static var parameters: [RuleParameter] { [flagUnsignedVerifyReceipt, flagUnsignedDecodedPayload] }

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let d = c.digest else { return }
        if let forgery = d.forgery {
            verdict.fire(
                "forged: the JSON contradicts its signed receipt (\(forgery))",
                Evidence(
                    expected: "claims that match the signed receipt", actual: forgery,
                    extra: [("reason", .string("forged: JSON contradicts its signed receipt"))]))
            return
        }
        switch d.signature.verdict {
        case .invalid:
            verdict.fire(
                "the receipt's signature does not verify: \(d.signature.reason)",
                Evidence(
                    expected: "a signature that verifies against Rules/trust", actual: d.signature.verdict.rawValue,
                    extra: [("reason", .string(d.signature.reason))]))
        case .unsigned:
            unsigned(c, d, &verdict)
        default:
            verdict.pass("signature \(d.signature.verdict.rawValue): \(d.signature.reason)")
        }
    }

    private static func unsigned(_ c: OrderContext, _ d: ReceiptDigest, _ verdict: inout RuleVerdict) {
        if d.kind == .googlePurchase {
            verdict.fire(
                "the Google purchase carries no signature",
                Evidence(expected: "a signed purchase", actual: "unsigned", extra: [("reason", .string("unsigned"))]))
        } else if d.kind == .appleVerifyReceiptJSON, c.value(flagUnsignedVerifyReceipt) != 0 {
            verdict.fire(
                "the verifyReceipt JSON carries no signed receipt to check it against",
                Evidence(
                    expected: "an embedded latest_receipt", actual: "unsigned", extra: [("reason", .string("unsigned"))]
                ))
        } else if d.kind == .appleJWSTransaction, c.value(flagUnsignedDecodedPayload) != 0 {
            // A JWS is never unsigned: this is a transaction's decoded JSON stored without it.
            verdict.fire(
                "the decoded transaction JSON carries no JWS to check it against",
                Evidence(expected: "a signed JWS", actual: "unsigned", extra: [("reason", .string(d.signature.reason))])
            )
        } else {
            let parameter = d.kind == .appleJWSTransaction ? flagUnsignedDecodedPayload : flagUnsignedVerifyReceipt
            verdict.pass("unsigned (\(d.signature.reason)); \(parameter.name) is 0, so only its claims are screened")
        }
    }
}
