import DumpFormats
import IAPBasics
import ReceiptFormats
import Screening

/// The per-order work that runs on the workers: decode the receipt, check its signature,
/// resolve the order against it, and keep the digest the rules need.
struct ReceiptScreening: Sendable {
    let resolver: OrderResolver
    let limits: Limits
    let verify: @Sendable (Receipt) -> (SignatureStatus, forgery: String?)

    enum Outcome: Sendable {
        case screened(ScreenOrder, ReceiptState)
        /// The row cannot be screened (its product is unknown): a malformed record.
        case unresolvable(String)
    }

    func screen(_ row: OrderRow, index: Int, payload: [UInt8]?) -> Outcome {
        guard let payload else {
            switch resolver.resolve(row, index: index, receiptPlatform: nil) {
            case .success(let order): return .screened(order, .missing)
            case .failure(let f): return .unresolvable(f.reason)
            }
        }
        let receipt: Receipt
        do {
            receipt = try ReceiptDecoder.decode(payload, limits: limits)
        } catch {
            switch resolver.resolve(row, index: index, receiptPlatform: nil) {
            case .success(let order): return .screened(order, .undecodable(error))
            case .failure(let f): return .unresolvable(f.reason)
            }
        }
        switch resolver.resolve(row, index: index, receiptPlatform: receipt.platform) {
        case .failure(let f): return .unresolvable(f.reason)
        case .success(let order):
            let (signature, forgery) = verify(receipt)
            return .screened(order, .decoded(ReceiptDigest(receipt: receipt, signature: signature, forgery: forgery, for: order)))
        }
    }
}
