import IAPBasics
import Ledger

/// A sharded run's worker's part (docs/ledger.md): its shard of the night, the run it is part
/// of, and the run's state in the ledger, where the workers meet. The worker stages its
/// orders, waits for the others' and claims beside them; its share of the run is handed
/// over to the ledger by the last one to finish.
package struct OwnedShard {
    package let spec: ShardSpec
    package let runID: String
    /// How long to wait for the other shards, in seconds.
    package let timeout: Double
    package let run: PostgresShardRun

    package init(spec: ShardSpec, runID: String, timeout: Double, run: PostgresShardRun) {
        self.spec = spec
        self.runID = runID
        self.timeout = timeout
        self.run = run
    }

    /// `--split-dumps`: the worker's dumps hold its shard's records alone (as it joined the run).
    package var splitDumps: Bool { run.machine.splitDumps }

    /// Which orders the worker reads and reports.
    var owned: OwnedOrders { .shard(spec, splitDumps: splitDumps) }

    /// Stages this worker's orders and reads back every other shard's, once all are staged.
    func exchange(_ loader: NightLoader, _ screener: NightScreener, progress: (any NightProgress)?) throws(LedgerError)
        -> ShardOrders
    {
        // Made and read one order at a time: the night's orders are not held twice.
        try run.stage(count: loader.slots.count) { screener.stagedOrder($0, loader) }
        progress?.phase("waiting for the other shards of run \(runID)", count: loader.slots.count)
        try run.waitForAll(timeout: timeout)
        let tokens = screener.events?.unresolvedTokens ?? []
        // The server sends only the rows that can matter, and counts the users' orders itself.
        let users = screener.ownUsers(loader)
        let others = try ShardOrders.gathered(ownKeys: screener.ownKeys(loader), tokens: tokens, users: nil) {
            (reading, take: (PostgresShardRun.StagedOrder) -> Bool) throws(LedgerError) in
            switch reading {
            case .linking: try run.readOthersOrders(.linking(tokens: !tokens.isEmpty), take)
            case .keeping(nil): try run.readOthersOrders(.every, take)
            case .keeping(let filter?):
                try run.readOthersOrders(.tied(keyHashes: filter.hashes, tokens: !tokens.isEmpty), take)
            }
        }
        guard var others else {
            throw LedgerError("run \(runID): another shard's staged orders cannot be read", code: .postgres)
        }
        if let users { others.ordersOfUsers = try run.countOthersOrders(ofUsers: Array(users)) }
        return others
    }
}
