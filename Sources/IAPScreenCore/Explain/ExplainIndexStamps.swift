import Ledger
import Night

/// What `screen` and `explain` each say of a night for the explain index: the stamp the index
/// is written with and checked against, and the ledger's last run it is sealed with.
enum ExplainIndexStamps {
    /// The night's inputs, Rules and binary as they are now; nil when an input cannot be read
    /// (the night says which).
    static func make(_ setup: ScreenSetup) -> ExplainIndexStamp? {
        ExplainIndexStamp(
            version: IAPScreen.version, rulesSHA256: Summaries.rulesDigest(setup.rules.rules),
            production: setup.rules.defaultProduction, orders: setup.inputs.orders, receipts: setup.inputs.receipts,
            storeEvents: setup.inputs.storeEvents)
    }

    /// The ledger's last run (nil: no ledger, or one of no runs); nil outside when it cannot be read.
    static func lastRun(_ ledger: (any LedgerStore)?) -> LedgerRunStamp?? {
        guard let ledger else { return .some(nil) }
        guard let runs = try? ledger.recentRuns(1) else { return nil }
        return .some(runs.first.map { LedgerRunStamp(run: $0.id, startedAt: $0.startedAt, finishedAt: $0.finishedAt) })
    }

    /// Seals `index` with the run the ledger has just recorded; an index that cannot be sealed
    /// is not put in place (`index.problem` says why).
    static func seal(_ index: ExplainIndexOutput, ledger: (any LedgerStore)?) {
        guard let run = lastRun(ledger) else {
            index.fail("the ledger's last run cannot be read")
            return
        }
        do {
            try index.seal(ledger: run)
        } catch {
            index.fail("\(error)")
        }
    }
}
