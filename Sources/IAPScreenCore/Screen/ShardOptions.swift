import IAPBasics
import Ledger
import Night

/// `screen --shard I/N --run-id ID [--shard-timeout S]` (docs/ledger.md): one worker of a
/// sharded run. Only on a PostgreSQL ledger, where the workers meet.
struct ShardOptions {
    let shard: ShardSpec
    let runID: String
    /// How long to wait for the other shards, in seconds.
    let timeout: Double
    /// `--split-dumps`: the dumps given hold this shard's records alone.
    let splitDumps: Bool

    static let options: [OptionSpec] = [
        OptionSpec(
            "--shard", .one, valueName: "I/N",
            help: "Screen shard I of N of the night (needs --run-id and a postgres:// ledger)."),
        OptionSpec(
            "--run-id", .one, valueName: "ID", help: "The sharded run this worker is part of: the same on every worker."
        ),
        OptionSpec(
            "--shard-timeout", .one, valueName: "SECONDS", help: "How long to wait for the other shards (default 3600)."
        ),
        OptionSpec(
            "--split-dumps", .flag,
            help: "The --orders and --receipts given hold this shard's records alone (an export split by shard)."),
    ]

    /// Longer run ids are no one's naming scheme.
    static let maxRunIDLength = 200

    /// Nil without `--shard`; a usage error (already said) for a bad combination.
    static func parse(
        _ args: ParsedArguments, ledger: LedgerSpec, command spec: CommandSpec,
        io: Console
    ) -> Result<ShardOptions?, ScreenSetup.Stop> {
        func refuse(_ message: String) -> Result<ShardOptions?, ScreenSetup.Stop> {
            io.usageError(command: spec, message)
            return .failure(ScreenSetup.Stop(status: .usage))
        }
        guard let text = args.one("--shard") else {
            if args.one("--run-id") != nil { return refuse("--run-id names a sharded run: it goes with --shard I/N") }
            if args.one("--shard-timeout") != nil { return refuse("--shard-timeout goes with --shard I/N") }
            if args.has("--split-dumps") { return refuse("--split-dumps goes with --shard I/N: a shard's own dumps") }
            return .success(nil)
        }
        guard let shard = ShardSpec(text) else {
            return refuse("--shard takes I/N with 1 ≤ I ≤ N ≤ \(ShardSpec.maxCount), not '\(text)'")
        }
        guard let runID = args.one("--run-id") else {
            return refuse("--shard needs --run-id: the same id on every worker of the run")
        }
        guard !runID.isEmpty, runID.utf8.count <= maxRunIDLength,
            runID.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else {
            return refuse("--run-id takes 1 to \(maxRunIDLength) printable ASCII characters without spaces")
        }
        var timeout = PostgresShardRun.defaultTimeout
        if let t = args.one("--shard-timeout") {
            guard let seconds = Double(t), seconds.isFinite, seconds > 0, seconds <= 7 * 86_400 else {
                return refuse("--shard-timeout takes a number of seconds above 0, at most a week, not '\(t)'")
            }
            timeout = seconds
        }
        guard case .postgres = ledger else {
            return refuse("--shard needs a postgres:// ledger, where the workers of a run meet, not \(ledger.shown)")
        }
        return .success(
            ShardOptions(shard: shard, runID: runID, timeout: timeout, splitDumps: args.has("--split-dumps")))
    }

    /// Joins the run on the ledger (no run lock: the run's state in the ledger keeps other
    /// runs out); a refusal is said here with its exit status.
    func join(_ uri: String, io: Console) -> Result<(PostgresLedger, OwnedShard), LockedLedger.Refusal> {
        do {
            let ledger = try PostgresLedger(uri: uri)
            let run = try PostgresShardRun(
                ledger: ledger, runID: runID, shard: shard, abandonedAfter: timeout, splitDumps: splitDumps)
            return .success(
                (ledger, OwnedShard(spec: shard, runID: runID, timeout: timeout, run: run)))
        } catch {
            io.error("iapscreen screen: \(error); nothing written")
            return .failure(LockedLedger.Refusal(status: LockedLedger.status(of: error)))
        }
    }

    /// One run per ledger at a time: held until the run ends. A sharded run's worker joins
    /// its run instead.
    static func hold(_ ledger: LedgerSpec, _ sharding: ShardOptions?, command: CommandSpec, io: Console) -> Result<
        (ledger: LockedLedger?, shard: OwnedShard?), LockedLedger.Refusal
    > {
        if let sharding, case .postgres(let uri, _) = ledger {
            return sharding.join(uri, io: io).map { (ledger, shard) in (LockedLedger(lock: nil, ledger: ledger), shard)
            }
        }
        return LockedLedger.open(ledger, command: command.name, consequence: "nothing written", io: io).flatMap {
            held in
            // The desk's verdicts given before this run count in it; those given during it, from the next.
            do throws(LedgerError) {
                _ = try held?.ledger.applyDeskVerdicts()
            } catch {
                io.error("iapscreen \(command.name): cannot apply the desk's verdicts: \(error); nothing written")
                return .failure(LockedLedger.Refusal(status: LockedLedger.status(of: error)))
            }
            return .success((held, nil))
        }
    }
}
