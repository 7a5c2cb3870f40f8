/// The stable ids of the named rules (CONTRACT §6), their default severity, and the
/// parameters each accepts in a `.rules` file.
public enum RuleID: String, Sendable, CaseIterable, Hashable {
    case replayedTransaction = "replayed-transaction"
    case signatureInvalid = "signature-invalid"
    case bundleIDMismatch = "bundle-id-mismatch"
    case itemIDMismatch = "item-id-mismatch"
    case sandboxInProduction = "sandbox-in-production"
    case transactionNotInReceipt = "transaction-not-in-receipt"
    case revoked = "revoked"
    case accountMismatch = "account-mismatch"
    case receiptUndecodable = "receipt-undecodable"
    case expiredValidity = "expired-validity"
    case missingReceipt = "missing-receipt"
    case orphanReceipt = "orphan-receipt"
    case purchaseNotCompleted = "purchase-not-completed"
    case malformedRecord = "malformed-record"

    public var defaultSeverity: Severity {
        switch self {
        case .replayedTransaction, .signatureInvalid, .bundleIDMismatch: return .critical
        case .itemIDMismatch, .sandboxInProduction, .transactionNotInReceipt, .revoked, .accountMismatch,
             .receiptUndecodable: return .high
        case .expiredValidity, .missingReceipt, .orphanReceipt, .purchaseNotCompleted: return .medium
        case .malformedRecord: return .low
        }
    }

    /// Parameters a `.rules` file may set, with their defaults (whole numbers of days, or yes/no).
    public var parameters: [(name: String, defaultValue: Int)] {
        switch self {
        case .expiredValidity: return [("grace_days", 1), ("max_proof_age_days", 30)]
        case .signatureInvalid: return [("flag_unsigned_verify_receipt", 0), ("flag_unsigned_decoded_payload", 0)]
        case .sandboxInProduction: return [("trust_legacy_environment", 0)]
        default: return []
        }
    }

    /// One sentence: what the rule flags.
    public var summary: String {
        switch self {
        case .replayedTransaction: return "one store transaction credited to more than one order"
        case .signatureInvalid: return "the signature or chain does not verify, the JSON contradicts its signed receipt, or a Google purchase is unsigned"
        case .bundleIDMismatch: return "the receipt belongs to an app that is not ours"
        case .itemIDMismatch: return "the receipt holds no purchase of the order's product"
        case .sandboxInProduction: return "a sandbox, Xcode or test purchase, or an iOS 6 receipt (whose environment is not signed), credited in production"
        case .transactionNotInReceipt: return "the order names a transaction its receipt does not contain"
        case .revoked: return "the store refunded or revoked the purchase"
        case .accountMismatch: return "the purchase is bound to another account than the order's"
        case .receiptUndecodable: return "the payload is not a receipt this tool can read"
        case .expiredValidity: return "the subscription had expired, or the proof is older than the maximum age"
        case .missingReceipt: return "a credited order has no receipt"
        case .orphanReceipt: return "a receipt whose order is not in the dump"
        case .purchaseNotCompleted: return "a Google purchase that is pending or cancelled"
        case .malformedRecord: return "a dump record that could not be read"
        }
    }
}
