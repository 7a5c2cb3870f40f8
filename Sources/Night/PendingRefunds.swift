import IAPBasics
import Screening

/// Refunds judged on tonight's orders, waiting for the reports: a few bytes each (the order's
/// slot, the rule called, which refund), the refund read back from the night's packed refunds
/// when its finding is made, so a night flagging many orders for refunds keeps little.
struct PendingRefunds: Sendable {
    private struct Entry: Sendable {
        var slot: Int32
        /// The judge's index: tonight's keyed refunds (`keyed`), then the remembered ones.
        var ordinal: Int32
        var call: RefundJudge.Call
    }

    private var packed = NightRefunds()
    private var keyed: [Int32] = []
    private var resolved: [Int32: String] = [:]
    private var remembered: [StoreRefund] = []
    /// By slot once `settle`d, each slot's in the order judged.
    private var entries: [Entry] = []

    init() {}

    /// `keyed` maps the judge's indices of tonight's refunds to `packed`; `resolved` gives the
    /// key of a token-only refund the claims resolved; `remembered` follows tonight's.
    init(packed: NightRefunds, keyed: [Int32], resolved: [Int32: String], remembered: [StoreRefund]) {
        self.packed = packed
        self.keyed = keyed
        self.resolved = resolved
        self.remembered = remembered
    }

    var isEmpty: Bool { entries.isEmpty }

    mutating func add(_ j: RefundJudge.Judged, slot: Int32) {
        entries.append(Entry(slot: slot, ordinal: Int32(clamping: j.index), call: j.call))
    }

    /// Sorts the entries by slot (stable: the judge's order within one).
    mutating func settle() {
        entries = entries.enumerated().sorted { a, b in
            a.element.slot != b.element.slot ? a.element.slot < b.element.slot : a.offset < b.offset
        }.map(\.element)
    }

    func has(_ slot: Int32) -> Bool { first(slot) < entries.count && entries[first(slot)].slot == slot }

    /// The refunds judged on the order in `slot`, as `taker` (the order as tonight's dump has it).
    func judged(for slot: Int32, taker: RefundJudge.Taker) -> [RefundJudge.Judged] {
        var out: [RefundJudge.Judged] = []
        var k = first(slot)
        while k < entries.count, entries[k].slot == slot {
            let e = entries[k]
            if let r = refund(Int(e.ordinal)) {
                out.append(RefundJudge.Judged(index: Int(e.ordinal), taker: taker, call: e.call, refund: r))
            }
            k += 1
        }
        return out
    }

    private func refund(_ ordinal: Int) -> StoreRefund? {
        if ordinal < keyed.count {
            let i = keyed[ordinal]
            guard Int(i) < packed.count else { return nil }
            var r = packed[Int(i)].refund
            if let key = resolved[i] { r.key = key }
            return r
        }
        let m = ordinal - keyed.count
        return remembered.indices.contains(m) ? remembered[m] : nil
    }

    /// The first entry whose slot is not below `slot`.
    private func first(_ slot: Int32) -> Int {
        var lo = 0
        var hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].slot < slot { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
