import Ledger

/// `iapscreen ledger status [--ledger URL]`: what a ledger holds, read without a lock.
///
///     backend: sqlite | postgresql
///     ledger: sqlite:PATH | postgres://user@host:port/db (schema iapscreen)
///     schema: 2
///     claims: N                      the rows completed runs (and review) left
///     findings reported: N
///     reviews: N
///     store events: N
///     refunds: N (M reversed)
///     users' consents: N
///     flagged orders: N              the desk's (CONTRACT §14)
///     desk users: N
///     open claims: N                 live now, no verdict
///     audit entries: N
///     completed runs: N
///     run in progress: none | who holds the ledger's run lock | N sharded
///       sharded run ID (N shards) in progress|abandoned: staged …, finished …, running now …
///     last runs, newest first:
///       run ID  started …  finished …  orders N  flagged M     (a sharded run: run RUN-ID (N shards))
enum LedgerStatus {
    /// How many of the last runs are listed.
    static let lastRuns = 10

    static func run(_ args: ParsedArguments, command spec: CommandSpec, io: Console) -> ExitStatus {
        guard let place = LedgerCommand.place(args, "--ledger", command: spec, io: io) else { return .usage }
        let ledger: any LedgerStore
        switch LedgerCommand.read(place, command: "ledger status", consequence: "nothing shown", io: io) {
        case .success(let l): ledger = l
        case .failure(let refusal): return refusal.status
        }
        do {
            io.out.write(try text(place, ledger))
            return .ok
        } catch {
            io.error("iapscreen ledger status: cannot read the ledger: \(error); nothing shown")
            return LockedLedger.status(of: error)
        }
    }

    static func text(_ place: LedgerSpec, _ ledger: any LedgerStore) throws(LedgerError) -> String {
        let version = try ledger.storedSchemaVersion()
        let counts = try ledger.counts()
        let runs = try ledger.recentRuns(lastRuns)
        var lines: [String] = []
        switch place {
        case .postgres(_, let target): lines += ["backend: postgresql", "ledger: \(target) (schema iapscreen)"]
        default: lines += ["backend: sqlite", "ledger: \(place.shown)"]
        }
        let before =
            switch version {
            case 0: "written before schema versions"
            case 2: "written before the users' consents"
            default: "written before the review desk"
            }
        lines.append(
            "schema: \(version)"
                + (version < SQLiteLedger.schemaVersion
                    ? " (\(before); the next screen or review migrates it to \(SQLiteLedger.schemaVersion))" : ""))
        lines += [
            "claims: \(counts.claims)",
            "findings reported: \(counts.reported)",
            "reviews: \(counts.reviews)",
            "store events: \(counts.storeEvents)",
            "refunds: \(counts.refunds) (\(counts.reversed) reversed)",
            "users' consents: \(counts.consents)",
            "flagged orders: \(counts.flaggedOrders)",
            "desk users: \(counts.users)",
            "open claims: \(counts.openClaims)",
            "audit entries: \(counts.auditEntries)",
            "completed runs: \(counts.runs)",
        ]
        // An unsharded run in progress is seen by the lock it holds; a sharded one (PostgreSQL
        // only) by the row it keeps until its last shard is done.
        let sharded =
            try (ledger as? PostgresLedger).map { l throws(LedgerError) in try PostgresShardRun.runsInProgress(l) }
            ?? []
        let holder = try ledger.runHolder().map { "held by \($0)" }
        lines.append("run in progress: " + (holder ?? (sharded.isEmpty ? "none" : "\(sharded.count) sharded")))
        lines += sharded.map { "  " + $0 }
        if !runs.isEmpty {
            lines.append("last runs, newest first:")
            for r in runs {
                let name = r.sharded.map { "\($0.runID) (\($0.shards) shards)" } ?? String(r.id)
                lines.append(
                    "  run \(name)  started \(r.startedAt)  finished \(r.finishedAt)  orders \(r.orders)  flagged \(r.flagged)"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
