import Ledger
import Reporting
import Screening

/// Places what the night's events found, in the order they were read: a refund judged on
/// tonight's order waits for that order's report (`PendingRefunds`); one on an earlier
/// night's order, an event not believed and a line that is no event become reports of their
/// own after tonight's orders. Each of those reports' place among a whole run's is a count
/// of every event and refund looked at, the same on every worker of a sharded run whichever
/// of them reports what, so `merge` puts them back in one run's order.
struct AfterNightPlacer {
    let screener: NightScreener
    let night: NightLoader
    let book: ClaimBook
    /// Earlier nights' claims of the transactions refunded, with what they bought.
    let earlier: [String: (claim: Claim, details: ClaimDetails)]
    let watch: Int32?
    /// Events not believed and lines that are no event, each with its place among the refunds.
    let others: [(before: Int, other: StoreEventNight.Other)]
    private var sequence = 0
    private var nextOther = 0

    init(
        screener: NightScreener, night: NightLoader, book: ClaimBook,
        earlier: [String: (claim: Claim, details: ClaimDetails)], watch: Int32?,
        others: [(before: Int, other: StoreEventNight.Other)]
    ) {
        self.screener = screener
        self.night = night
        self.book = book
        self.earlier = earlier
        self.watch = watch
        self.others = others
    }

    /// `judged` by the judge's index: tonight's keyed refunds (`keyed[k]` is refund k's index
    /// among the events read, which `others` are placed against), then the remembered ones.
    mutating func place(
        _ judged: [RefundJudge.Judged], keyed: [Int32], rememberedCount: Int,
        taker: (String) -> RefundJudge.Taker?, into out: inout EventOutcome
    ) {
        var byRefund: [Int: RefundJudge.Judged] = [:]
        for j in judged { byRefund[j.index] = j }
        for (k, refundIndex) in keyed.enumerated() {
            placeOthers(upTo: Int(refundIndex), taker: taker, into: &out)
            if let j = byRefund[k] { place(j, into: &out) }
            sequence += 1
        }
        placeOthers(upTo: Int.max, taker: taker, into: &out)
        for k in keyed.count..<(keyed.count + rememberedCount) {
            if let j = byRefund[k] { place(j, into: &out) }
            sequence += 1
        }
    }

    /// A sharded run's worker reports on its shard's orders only; what names no order is
    /// the first shard's.
    private func isMine(_ orderID: String?) -> Bool { screener.owned.reports(orderID) }

    private func placeAfterNight(_ report: OrderReport, mine: Bool, into out: inout EventOutcome) {
        guard mine else { return }
        out.afterNight.append(report)
        out.afterNightOrder.append(sequence)
    }

    private func place(_ j: RefundJudge.Judged, into out: inout EventOutcome) {
        if j.taker.slot == nil, let t = book.taker(of: j.refund.key), !t.remembered, t.handle == nil {
            // Tonight's order of another shard (the book holds its claim without a handle): its worker reports it.
            return
        }
        if let slot = j.taker.slot {
            guard screener.evaluator.isEnabled(j.rule) else { return }
            out.pending.add(j, slot: slot)
            if slot == watch, let f = screener.finding(j) { out.bySlot[slot, default: []].append(f) }
            return
        }
        if let f = screener.finding(j) {
            placeAfterNight(
                NightScreener.eventReport(
                    f, createdAt: j.taker.createdAt, isOrder: true, details: earlier[j.refund.key]?.details),
                mine: isMine(j.taker.orderID), into: &out)
        }
    }

    /// Each of `others` read before the refund at `refundIndex`.
    private mutating func placeOthers(
        upTo refundIndex: Int, taker: (String) -> RefundJudge.Taker?, into out: inout EventOutcome
    ) {
        let evaluator = screener.evaluator
        while nextOther < others.count, others[nextOther].before <= refundIndex {
            switch others[nextOther].other {
            case .malformed(let m):
                if let f = evaluator.nightFinding(
                    MalformedRecord.self, orderID: nil, MalformedRecord.words(location: m.location, reason: m.reason))
                {
                    placeAfterNight(
                        NightScreener.eventReport(f, createdAt: nil, isOrder: false), mine: isMine(nil), into: &out)
                }
            case .invalid(let type, let transaction, let location, let reason):
                let order = transaction.flatMap { taker($0) }
                let words = StoreEventInvalid.words(
                    type: type, transaction: transaction, location: location, reason: reason)
                if let f = evaluator.nightFinding(StoreEventInvalid.self, orderID: order?.orderID, words) {
                    var finding = f
                    finding.userID = order?.userID
                    // The order it names is shown as it is, though the finding does not flag it.
                    let details =
                        order?.slot.map { screener.details(ofSlot: $0, night) }
                        ?? transaction.flatMap { earlier[$0]?.details }
                    placeAfterNight(
                        NightScreener.eventReport(
                            finding, createdAt: order?.createdAt, isOrder: false, details: details),
                        mine: isMine(order?.orderID), into: &out)
                }
            }
            nextOther += 1
            sequence += 1
        }
    }
}
