import IAPBasics
import Ledger

/// `iapscreen ledger status|copy` (docs/ledger.md): what a ledger holds, and a ledger
/// copied whole to another place, either backend.
enum LedgerCommand {
    static let spec = CommandSpec(
        name: "ledger",
        summary: "Show what a ledger holds, or copy one to another: `iapscreen ledger status|copy`.",
        options: [
            OptionSpec(
                "--ledger", .one, valueName: "URL",
                help: "status: sqlite:PATH (default sqlite:iapscreen-ledger.sqlite) or postgres://… (a libpq URI)."),
            OptionSpec(
                "--from", .one, valueName: "URL",
                help: "copy (required there): the ledger to copy, sqlite:PATH or postgres://…; only read."),
            OptionSpec(
                "--to", .one, valueName: "URL",
                help: "copy (required there): where it goes, sqlite:PATH or postgres://…; must hold nothing."),
        ],
        positional: PositionalSpec(
            "status|copy", "status: what the ledger holds; copy: every row of --from into --to.", max: 1,
            required: true),
        details: """
            status only reads and takes no lock, so it works while a run holds the ledger. It
            prints the backend, the schema version, the rows that completed runs (and review)
            left: claims, findings reported, reviews, store events, refunds; the last runs; and
            whether a run holds the ledger now.
            copy reads --from in one snapshot (no lock) and writes every row (claims with what
            they bought, findings reported, reviews, runs, store events, refunds and their
            reversals) into --to in one transaction, holding its lock as a run does; --to is
            created if need be and must hold nothing. sqlite: to postgres:// or back, or onto the
            same backend.
            Exit status: 0 done; 2 bad usage, a ledger that is not there, a ledger of a newer
            schema, or (copy) a target that holds anything; 3 a ledger cannot be read or
            written; 4 (copy) the target is in use by another run.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        switch args.positionals {
        case ["status"]:
            guard !args.has("--from"), !args.has("--to") else {
                io.usageError(command: spec, "--from and --to are for ledger copy; ledger status reads --ledger")
                return .usage
            }
            return LedgerStatus.run(args, command: spec, io: io)
        case ["copy"]:
            guard !args.has("--ledger") else {
                io.usageError(command: spec, "ledger copy reads --from and writes --to; --ledger is for ledger status")
                return .usage
            }
            return LedgerCopy.run(args, command: spec, io: io)
        case []:
            io.usageError(
                command: spec, "say what to do: iapscreen ledger status, or iapscreen ledger copy --from URL --to URL")
            return .usage
        default:
            let word = args.positionals[0]
            let near = Spelling.nearest(word, in: ["status", "copy"]).map { " (did you mean '\($0)'?)" } ?? ""
            io.usageError(command: spec, "unknown subcommand '\(word)'\(near); there are status and copy")
            return .usage
        }
    }

    /// A `--ledger`, `--from` or `--to` that names a ledger (not `none`), or nil after saying what was wrong.
    static func place(_ args: ParsedArguments, _ option: String, command spec: CommandSpec, io: Console) -> LedgerSpec?
    {
        switch LedgerSpec.parse(args, option: option) {
        case .success(.none):
            io.usageError(command: spec, "\(option) none is no ledger: name one, e.g. \(LedgerSpec.defaultText)")
            return nil
        case .success(let place):
            return place
        case .failure(let invalid):
            io.usageError(command: spec, invalid.message)
            return nil
        }
    }

    /// The ledger at `place`, opened only to be read (no lock): one that is not there is exit
    /// 2, one that cannot be read exit 3, each said with `consequence`.
    static func read(
        _ place: LedgerSpec, command: String, consequence: String,
        io: Console
    ) -> Result<any LedgerStore, LockedLedger.Refusal> {
        switch LedgerReader.open(place, command: command, consequence: consequence, io: io) {
        case .success(let ledger?):
            return .success(ledger)
        case .success(nil):
            io.error("iapscreen \(command): \(missing(place)); \(consequence)")
            return .failure(LockedLedger.Refusal(status: .usage))
        case .failure(let refusal):
            return .failure(refusal)
        }
    }

    /// Where a ledger no run has written should have been, for the message that says so.
    private static func missing(_ place: LedgerSpec) -> String {
        switch place {
        case .none: "no ledger (--ledger none)"
        case .sqlite(let path): "there is no ledger at \(path): no run has written it"
        case .postgres(_, let target): "there is no ledger in \(target): no run has written it (no schema iapscreen)"
        }
    }
}
