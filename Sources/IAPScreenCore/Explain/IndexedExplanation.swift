import Ledger
import Night

/// `explain` from the index `screen` left in `--out`: the order's records read again where
/// screen read them, what the claims decided of it taken from the index, and the same words.
enum IndexedExplanation {
    enum Answer {
        case explained(String)
        case notInDumps
        /// The index does not answer (missing, of other inputs or another ledger run, damaged): why.
        case refused(String)
    }

    static func answer(
        _ orderID: String, setup: ScreenSetup, ledger: (any LedgerStore)?, outDir: String,
        words: (ExplainedOrder) -> OrderExplanation
    ) -> Answer {
        guard let stamp = ExplainIndexStamps.make(setup) else { return .refused("an input cannot be read") }
        let index: ExplainIndex
        switch ExplainIndex.open(directory: outDir, expecting: stamp, ledger: ExplainIndexStamps.lastRun(ledger)) {
        case .success(let i): index = i
        case .failure(let refusal): return .refused(refusal.description)
        }
        do {
            switch try index.order(orderID) {
            case .notInDumps: return .notInDumps
            case .order(let found):
                return .explained(try words(explained(found, index, rules: setup.rules)).text())
            }
        } catch {
            return .refused("\(error)")
        }
    }

    /// The order as explain's words take it, from what the index kept.
    private static func explained(_ found: IndexedOrder, _ index: ExplainIndex, rules: NightRules) -> ExplainedOrder {
        let facts = found.facts
        let (orderID, userID) = (found.row.orderID, found.row.userID)
        // The night-wide fields of the custom rules, as the claims left them for this order.
        var evaluator = rules.evaluator
        if evaluator.needsOrdersPerUser { evaluator.ordersPerUser = facts?.ordersOfUser.map { [userID: $0] } ?? [:] }
        if index.refundsJudged { evaluator.refundsPerUser = [userID: facts?.refundsOfUser ?? 0] }
        if let reason = facts?.eventReason { evaluator.refundReasons = [orderID: reason] }
        return ExplainedOrder(
            row: found.row, position: found.position, receiptPlatform: nil, receipt: found.receipt,
            selection: facts?.selection, evaluator: evaluator, eventFindings: facts?.eventFindings ?? [],
            isTonight: { _ in facts?.originalTonight ?? false },
            events: index.storeEventsRead.map { read in (read, { try index.eventLines(naming: $0) }) },
            requests: facts?.requests ?? [])
    }
}
