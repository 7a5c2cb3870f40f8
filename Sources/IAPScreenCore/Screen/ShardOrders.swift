import IAPBasics
import Ledger
import ReceiptFormats
import Screening

/// The orders of a sharded run's other shards, as claiming needs them: who, when, and what
/// each may take. With them, a worker claims in the same order, over the same orders, as one
/// unsharded run, so which order is a transaction's original — and `user.orders` — come out
/// the same whichever shard screens which order.
struct ShardOrders {
    /// Handle nil: the claim book keeps their claims itself. `catalogType` is
    /// `.nonConsumable` when the catalog says so, else nil (all claiming asks of it).
    var claimants: [Claimant] = []
    /// Empty for an order that claims nothing (no receipt); it still counts for its user.
    var candidates: [[ClaimCandidate]] = []

    var count: Int { claimants.count }

    /// From the rows the other shards staged; nil when one is not what a worker writes.
    init?(staged: [PostgresShardRun.StagedOrder]) {
        claimants.reserveCapacity(staged.count)
        candidates.reserveCapacity(staged.count)
        for s in staged {
            guard let taken = StagedCandidates.decode(s.candidates) else { return nil }
            claimants.append(Claimant(orderID: s.orderID, userID: s.userID, createdAt: s.createdAt,
                                      catalogType: s.catalog == 1 ? .nonConsumable : nil))
            candidates.append(taken)
        }
    }

    init() {}
}

/// What an order may take, as one text column: per candidate its key (length-prefixed, so
/// any bytes a receipt put in it come back as they were), purchase time, what the receipt
/// says of the product type and whether it is family-shared.
///
///     candidate := key "," date "," kind "," family ";"
///     key       := "-" | decimal-length ":" bytes        date := "-" | decimal millis
///     kind      := "-" | "0" (not a non-consumable) | "1"  family := "0" | "1"
enum StagedCandidates {
    static func encode(_ candidates: [ClaimCandidate]) -> String {
        var out = ""
        for c in candidates {
            if let key = c.key { out += "\(key.utf8.count):\(key)" } else { out += "-" }
            out += "," + (c.purchaseDate.map { String($0.millis) } ?? "-")
            out += "," + (c.nonConsumable.map { $0 ? "1" : "0" } ?? "-")
            out += "," + (c.familyShared ? "1" : "0") + ";"
        }
        return out
    }

    static func decode(_ text: String) -> [ClaimCandidate]? {
        let bytes = Array(text.utf8)
        var at = 0
        var out: [ClaimCandidate] = []
        func field() -> [UInt8]? {
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: ","), bytes[at] != UInt8(ascii: ";") { at += 1 }
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return Array(bytes[start..<at])
        }
        while at < bytes.count {
            var c = ClaimCandidate.empty
            if bytes[at] == UInt8(ascii: "-") {
                at += 1
            } else {
                let start = at
                while at < bytes.count, bytes[at] != UInt8(ascii: ":") { at += 1 }
                guard at < bytes.count, let length = Int(String(decoding: bytes[start..<at], as: UTF8.self)), length >= 0,
                      length <= bytes.count - at - 1 else { return nil }
                c.key = String(decoding: bytes[(at + 1)..<(at + 1 + length)], as: UTF8.self)
                at += 1 + length
            }
            guard at < bytes.count, bytes[at] == UInt8(ascii: ",") else { return nil }
            at += 1
            guard let date = field(), let kind = field(), let family = field() else { return nil }
            if date != Array("-".utf8) {
                guard let millis = Int64(String(decoding: date, as: UTF8.self)),
                      let t = Timestamp(millis: millis, hasMilliseconds: millis % 1000 != 0) else { return nil }
                c.purchaseDate = t
            }
            switch String(decoding: kind, as: UTF8.self) {
            case "-": c.nonConsumable = nil
            case "0": c.nonConsumable = false
            case "1": c.nonConsumable = true
            default: return nil
            }
            switch String(decoding: family, as: UTF8.self) {
            case "0": c.familyShared = false
            case "1": c.familyShared = true
            default: return nil
            }
            out.append(c)
        }
        return out
    }
}

extension NightScreener {
    /// This shard's orders as the others claim them: every credited order that was screened
    /// (for `user.orders`), with what it may take.
    func stagedOrders(_ night: NightLoader) -> [PostgresShardRun.StagedOrder] {
        let slots = night.slots
        var out: [PostgresShardRun.StagedOrder] = []
        for i in slots.indices {
            guard slots.with(i, { $0.pointee.order.status == .credited && $0.pointee.outcomeKind != nil }) else { continue }
            let candidates: [ClaimCandidate]
            if let box = night.deferred(at: i) {
                candidates = box.digest.candidates.map { ClaimCandidate($0, platform: box.digest.platform) }
            } else if let c = slots.with(i, { $0.pointee.candidate }) {
                candidates = [c]
            } else {
                candidates = []
            }
            // The catalog's word matters only where the receipt does not say.
            let asksCatalog = candidates.contains { $0.nonConsumable == nil }
            let catalog: Int64? = asksCatalog ? (screenOrder(slots[i], night).catalogType == .nonConsumable ? 1 : 0) : nil
            let o = slots[i].order
            out.append(.init(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt, catalog: catalog,
                             candidates: StagedCandidates.encode(candidates)))
        }
        return out
    }
}
