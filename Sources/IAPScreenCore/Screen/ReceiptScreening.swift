import DumpFormats
import IAPBasics
import ReceiptFormats
import Screening

/// The per-order work that runs on the workers: decode the receipt, check its signature,
/// resolve the order against it, and run every rule whose answer cannot depend on other
/// orders. What is left for later is small: the purchase the order may claim, or — for a
/// receipt with several purchases of the product — the digest to decide on after claims.
struct ReceiptScreening: Sendable {
    let resolver: OrderResolver
    let evaluator: RuleEvaluator
    let limits: Limits
    let verify: @Sendable (Receipt) -> (SignatureStatus, forgery: String?)
    /// With store events: each Google purchase's token is remembered by its hash, for a
    /// refund that names only a token to find its order (`TokenHash`).
    var hashesTokens = false
    /// With a ledger: a Google purchase's token is kept beside its claim, so that a later
    /// night's refund naming only the token finds it.
    var keepsTokens = false

    struct Outcome: Sendable {
        enum Kind: UInt8, Sendable {
            case missing, undecodable, decoded
        }

        var kind: Kind
        var receiptPlatform: Platform?
        /// The one purchase the order may claim (most orders).
        var candidate: ClaimCandidate?
        /// Findings that hold whatever the claims decide, already written as the spill file
        /// keeps them (a JSON array), so the reading thread only appends bytes.
        var findings: [UInt8]?
        /// Several purchases could be the order's: everything is decided after claims.
        var deferred: ReceiptDigestBox?
        /// The candidate's Google purchase token (`keepsTokens`), and its hash (`hashesTokens`; 0: none).
        var purchaseToken: String?
        var tokenHash: UInt64 = 0
    }

    func screen(_ row: OrderRow, index: Int, payload: [UInt8]?) -> Outcome {
        guard let payload else { return settled(row, index: index, platform: nil, state: .missing) }
        let receipt: Receipt
        do {
            receipt = try ReceiptDecoder.decode(payload, limits: limits)
        } catch {
            return settled(row, index: index, platform: nil, state: .undecodable(error))
        }
        let order = resolver.resolve(row, index: index, receiptPlatform: receipt.platform)
        let (signature, forgery) = verify(receipt)
        let digest = ReceiptDigest(receipt: receipt, signature: signature, forgery: forgery, for: order)
        var out = Outcome(kind: .decoded, receiptPlatform: receipt.platform)
        if digest.candidates.count > 1 || evaluator.needsOrdersPerUser || evaluator.needsStoreEventFields {
            out.deferred = ReceiptDigestBox(digest)
            return out
        }
        // With one candidate or none, the rules come out the same whichever way the
        // claims go; only a replay finding may be added later.
        out.candidate = digest.candidates.first.map { ClaimCandidate($0, platform: digest.platform) }
        if digest.platform == .android, let token = digest.candidates.first?.purchaseToken {
            if keepsTokens { out.purchaseToken = token }
            if hashesTokens { out.tokenHash = TokenHash.of(token) }
        }
        let findings = evaluator.findings(order: order, receipt: .decoded(digest),
                                          selection: digest.candidates.isEmpty ? .none : .picked(0))
        // Only flagged orders carry their receipt's key fields to the reports.
        if !findings.isEmpty {
            out.findings = FindingSpill.encode(findings, receiptFields: digest.keyFields(picked: digest.candidates.first))
        }
        return out
    }

    /// Orders without a readable receipt: nothing to claim, the findings are final. Their
    /// finding (`missing-receipt`, `receipt-undecodable`) needs no product.
    private func settled(_ row: OrderRow, index: Int, platform: Platform?, state: ReceiptState) -> Outcome {
        let kind: Outcome.Kind
        if case .missing = state { kind = .missing } else { kind = .undecodable }
        let order = resolver.resolve(row, index: index, receiptPlatform: platform)
        return Outcome(kind: kind, receiptPlatform: platform,
                       findings: FindingSpill.encode(evaluator.findings(order: order, receipt: state, selection: .none)))
    }
}

/// A digest kept until the claims are made (shared, never copied).
final class ReceiptDigestBox: Sendable {
    let digest: ReceiptDigest
    init(_ digest: ReceiptDigest) { self.digest = digest }
}
