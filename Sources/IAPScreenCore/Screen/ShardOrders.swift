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
    /// Google purchase tokens their purchases hold: token -> (claim key, the order's time
    /// and input position), for store events that name only a token.
    var tokens: [String: [(key: String, at: Int64, position: Int64)]] = [:]

    var count: Int { claimants.count }

    /// From the rows the other shards staged; nil when one is not what a worker writes.
    init?(staged: [PostgresShardRun.StagedOrder]) {
        claimants.reserveCapacity(staged.count)
        candidates.reserveCapacity(staged.count)
        for s in staged {
            guard let taken = StagedCandidates.decode(s.candidates) else { return nil }
            claimants.append(Claimant(orderID: s.orderID, userID: s.userID, createdAt: s.createdAt,
                                      catalogType: s.catalog == 1 ? .nonConsumable : nil))
            candidates.append(taken.map(\.candidate))
            for t in taken {
                if let token = t.token, let key = t.candidate.key {
                    tokens[token, default: []].append((key, s.createdAt.millis, s.position))
                }
            }
        }
    }

    init() {}
}

/// What an order may take, as one text column: per candidate its key and Google purchase
/// token (length-prefixed, so any bytes a receipt put in them come back as they were),
/// purchase time, what the receipt says of the product type and whether it is family-shared.
///
///     candidate := text "," date "," kind "," family "," text ";"     (key, …, token)
///     text      := "-" | decimal-length ":" bytes       date := "-" | decimal millis
///     kind      := "-" | "0" (not a non-consumable) | "1"  family := "0" | "1"
enum StagedCandidates {
    static func encode(_ candidates: [(candidate: ClaimCandidate, token: String?)]) -> String {
        var out = ""
        func text(_ t: String?) -> String { t.map { "\($0.utf8.count):\($0)" } ?? "-" }
        for (c, token) in candidates {
            out += text(c.key)
            out += "," + (c.purchaseDate.map { String($0.millis) } ?? "-")
            out += "," + (c.nonConsumable.map { $0 ? "1" : "0" } ?? "-")
            out += "," + (c.familyShared ? "1" : "0")
            out += "," + text(token) + ";"
        }
        return out
    }

    static func decode(_ text: String) -> [(candidate: ClaimCandidate, token: String?)]? {
        let bytes = Array(text.utf8)
        var at = 0
        var out: [(candidate: ClaimCandidate, token: String?)] = []
        /// A length-prefixed text or "-", then the separator `end`.
        func lengthPrefixed(then end: UInt8) -> String?? {
            var value: String?
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") {
                at += 1
            } else {
                let start = at
                while at < bytes.count, bytes[at] != UInt8(ascii: ":") { at += 1 }
                guard at < bytes.count, at - start <= 9, let length = Int(String(decoding: bytes[start..<at], as: UTF8.self)),
                      length >= 0, length <= bytes.count - at - 1 else { return nil }
                value = String(decoding: bytes[(at + 1)..<(at + 1 + length)], as: UTF8.self)
                at += 1 + length
            }
            guard at < bytes.count, bytes[at] == end else { return nil }
            at += 1
            return .some(value)
        }
        func field() -> [UInt8]? {
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: ","), bytes[at] != UInt8(ascii: ";") { at += 1 }
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return Array(bytes[start..<at])
        }
        while at < bytes.count {
            var c = ClaimCandidate.empty
            guard let key = lengthPrefixed(then: UInt8(ascii: ",")) else { return nil }
            c.key = key
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
            guard let token = lengthPrefixed(then: UInt8(ascii: ";")) else { return nil }
            out.append((c, token))
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
            let candidates: [(candidate: ClaimCandidate, token: String?)]
            if let box = night.deferred(at: i) {
                candidates = box.digest.candidates.map { (ClaimCandidate($0, platform: box.digest.platform), $0.purchaseToken) }
            } else if let c = slots.with(i, { $0.pointee.candidate }) {
                candidates = [(c, night.purchaseToken(at: i))]
            } else {
                candidates = []
            }
            // The catalog's word matters only where the receipt does not say.
            let asksCatalog = candidates.contains { $0.candidate.nonConsumable == nil }
            let catalog: Int64? = asksCatalog ? (screenOrder(slots[i], night).catalogType == .nonConsumable ? 1 : 0) : nil
            let o = slots[i].order
            out.append(.init(orderID: o.orderID, userID: o.userID, createdAt: o.createdAt,
                             position: Int64(slots.with(i) { $0.pointee.position }), catalog: catalog,
                             candidates: StagedCandidates.encode(candidates)))
        }
        return out
    }
}
