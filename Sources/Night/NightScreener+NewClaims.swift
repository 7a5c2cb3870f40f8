import Dispatch
import Ledger
import Screening

extension NightScreener {
    /// Tonight's new claims with what each order bought, for the ledger, smallest key first:
    /// written to a pass file a chunk at a time, each chunk built on every core (a night of a
    /// million claims resolves a million orders, and does not hold a million `NewClaim`s).
    func newClaims(_ book: ClaimBook, _ night: NightLoader) throws(PassFile.Failure) -> (
        file: PassFile, rows: RunRows<NewClaim>
    ) {
        // Claims without a handle are the other shards' orders': theirs to hand over.
        let taken = book.newHandledClaims.sorted { $0.key < $1.key }
        let file = try PassFile()
        let chunk = 1 << 13
        // Nothing they read changes while they run.
        nonisolated(unsafe) let screener = self
        nonisolated(unsafe) let night = night
        nonisolated(unsafe) let book = book
        var from = 0
        while from < taken.count {
            let slice = taken[from..<min(from + chunk, taken.count)]
            let parts = slice.count < 1024 ? 1 : 8
            let size = (slice.count + parts - 1) / parts
            let base = slice.startIndex
            let claims = [NewClaim](unsafeUninitializedCapacity: slice.count) { out, initialized in
                guard let start = out.baseAddress else { return }
                nonisolated(unsafe) let first = start
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    for k in min(slice.count, part * size)..<min(slice.count, (part + 1) * size) {
                        let t = taken[base + k]
                        (first + k).initialize(
                            to: NewClaim(
                                key: t.key, claim: book.claim(ofHandle: t.handle),
                                details: screener.details(of: t.handle, key: t.key, night)))
                    }
                }
                initialized = slice.count
            }
            for c in claims { try file.put(c) }
            from += slice.count
        }
        let rows = SpooledRows.rows { () throws(PassFile.Failure) in
            try file.rewind()
            return { () throws(PassFile.Failure) in file.atEnd ? nil : try file.newClaim() }
        }
        return (file, rows)
    }

    /// What the order in slot `i` bought, as the ledger keeps it beside its claim of `key`.
    fileprivate func details(of i: Int32, key: String, _ night: NightLoader) -> ClaimDetails {
        let slot = night.slots[Int(i)]
        let o = screenOrder(slot, night)
        var token = night.purchaseToken(at: Int(i))
        if token == nil, let digest = night.deferred(slot)?.digest, digest.platform == .android {
            token = digest.candidates.first { claimKey($0, platform: .android) == key }?.purchaseToken
        }
        return ClaimDetails(
            productID: o.expectedProductID, amount: o.amount, currency: o.currency, purchaseToken: token,
            platform: (o.platform ?? slot.outcome?.receiptPlatform)?.rawValue)
    }
}
