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
    /// night's refund naming only the token finds it, and tonight's purchase finds a refund
    /// the ledger keeps by its token alone.
    var keepsTokens = false
    /// With store events: the receipts of orders the dump does not say are credited are
    /// decoded too (not checked), for the purchase they name: a refund or refund request of
    /// it finds its order however the row names it (`UncreditedPurchase`).
    var readsUncredited = false

    /// This screening for a night read with store events and/or a ledger: the one place
    /// every command (`screen`, `explain`, `backtest`) sets what the tokens need.
    func forNight(storeEvents: Bool, ledger: Bool) -> ReceiptScreening {
        var night = self
        night.hashesTokens = storeEvents
        night.readsUncredited = storeEvents
        night.keepsTokens = ledger
        return night
    }

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

    /// A payload decoded and its signature checked: the expensive part, done once however
    /// many Rules directories then judge it (`backtest`).
    struct ReadReceipt: Sendable {
        var receipt: Receipt
        var signature: SignatureStatus
        var forgery: String?
    }

    /// A payload decoded, its signature not yet checked: a worker decodes a whole batch
    /// before it checks any (`ES256Inverses`).
    enum Decoded {
        case missing
        case undecodable(DecodeError)
        case receipt(Receipt)
    }

    /// `signatures` gets the receipt's JWS signatures (`appendJWSSignatures`), taken while
    /// the receipt is a local: a receipt read back out of a batch's array was copied whole.
    func decode(_ payload: String?, signatures: inout [[UInt8]]) -> Decoded {
        guard let payload else { return .missing }
        do throws(DecodeError) {
            let receipt = try ReceiptDecoder.decode(payload, limits: limits)
            receipt.signed.appendJWSSignatures(to: &signatures)
            return .receipt(receipt)
        } catch {
            return .undecodable(error)
        }
    }

    /// Checked and judged; the receipt is moved out of `decoded`, not copied string by string.
    func screen(_ row: OrderRow, index: Int, decoded: consuming Decoded) -> Outcome {
        switch consume decoded {
        case .missing: return settled(row, index: index, platform: nil, state: .missing)
        case .undecodable(let error): return settled(row, index: index, platform: nil, state: .undecodable(error))
        case .receipt(let receipt):
            let (signature, forgery) = verify(receipt)
            return screen(row, index: index, receipt: receipt, signature: signature, forgery: forgery)
        }
    }

    /// Checked, for more than one Rules directory to judge (`backtest`); nil when the order
    /// has no receipt.
    func read(_ decoded: consuming Decoded) -> Result<ReadReceipt, DecodeError>? {
        switch consume decoded {
        case .missing: return nil
        case .undecodable(let error): return .failure(error)
        case .receipt(let receipt):
            let (signature, forgery) = verify(receipt)
            return .success(ReadReceipt(receipt: receipt, signature: signature, forgery: forgery))
        }
    }

    /// The signature checked again against this screening's trust (a candidate Rules
    /// directory with trust files of its own).
    func reverified(_ read: Result<ReadReceipt, DecodeError>) -> Result<ReadReceipt, DecodeError> {
        read.map { r in
            let (signature, forgery) = verify(r.receipt)
            return ReadReceipt(receipt: r.receipt, signature: signature, forgery: forgery)
        }
    }

    /// `read`: nil when the order has no receipt.
    func screen(_ row: OrderRow, index: Int, read: Result<ReadReceipt, DecodeError>?) -> Outcome {
        guard let read else { return settled(row, index: index, platform: nil, state: .missing) }
        switch read {
        case .success(let r):
            return screen(row, index: index, receipt: r.receipt, signature: r.signature, forgery: r.forgery)
        case .failure(let error): return settled(row, index: index, platform: nil, state: .undecodable(error))
        }
    }

    private func screen(
        _ row: OrderRow, index: Int, receipt: borrowing Receipt, signature: SignatureStatus, forgery: String?
    ) -> Outcome {
        let order = resolver.resolve(row, index: index, receiptPlatform: receipt.platform)
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
        let findings = evaluator.findings(
            order: order, receipt: .decoded(digest),
            selection: digest.candidates.isEmpty ? .none : .picked(0))
        // Only flagged orders carry their receipt's key fields to the reports.
        if !findings.isEmpty {
            out.findings = FindingSpill.encode(
                findings, receiptFields: digest.keyFields(picked: digest.candidates.first))
        }
        return out
    }

    /// The purchase the receipt of an order tonight's dump does not call credited names for
    /// it: of the purchases that may be the order's (`ReceiptDigest.candidates`), the one the
    /// claims would pick first (`ClaimBook.likeliest`). Nil when none is readable. The
    /// signature is not checked: this only tells which order a store's own (verified)
    /// refund or request is about, and raises nothing.
    func uncreditedPurchase(_ row: OrderRow, index: Int, decoded: consuming Decoded) -> UncreditedPurchase? {
        guard case .receipt(let receipt) = consume decoded else { return nil }
        let order = resolver.resolve(row, index: index, receiptPlatform: receipt.platform)
        let digest = ReceiptDigest(
            receipt: receipt, signature: SignatureStatus(.unchecked, "an order not credited"), for: order)
        let candidates = digest.candidates.map { ClaimCandidate($0, platform: digest.platform) }
        guard let i = ClaimBook.likeliest(candidates, before: order.createdAt), let key = candidates[i].key else {
            return nil
        }
        let token = digest.platform == .android ? digest.candidates[i].purchaseToken : nil
        return UncreditedPurchase(key: key, token: token)
    }

    /// Orders without a readable receipt: nothing to claim, the findings are final. Their
    /// finding (`missing-receipt`, `receipt-undecodable`) needs no product.
    private func settled(_ row: OrderRow, index: Int, platform: Platform?, state: ReceiptState) -> Outcome {
        let kind: Outcome.Kind
        if case .missing = state { kind = .missing } else { kind = .undecodable }
        let order = resolver.resolve(row, index: index, receiptPlatform: platform)
        return Outcome(
            kind: kind, receiptPlatform: platform,
            findings: FindingSpill.encode(evaluator.findings(order: order, receipt: state, selection: .none)))
    }
}

/// The purchase named by the receipt of an order tonight's dump marks `refunded`, `failed` or
/// `pending`: its claim key, and a Google purchase's token.
struct UncreditedPurchase: Sendable, Equatable {
    var key: String
    var token: String?
}

/// A digest kept until the claims are made (shared, never copied).
final class ReceiptDigestBox: Sendable {
    let digest: ReceiptDigest
    init(_ digest: ReceiptDigest) { self.digest = digest }
}
