import Foundation
import Ledger
import Night
import Screening

/// What `screen`, `explain` and `backtest` make of their input flags: the night's inputs,
/// the Rules and their trust, and the ledger's address. A problem is printed here and comes
/// back as the exit status to end with.
struct ScreenSetup {
    let inputs: Night.Inputs
    let rules: NightRules
    let ledgerSpec: LedgerSpec

    /// The input flags the three share.
    static let inputOptions: [OptionSpec] = [
        OptionSpec(
            "--orders", .many, valueName: "PATH",
            help: "Orders dumps (CSV/TSV, JSON Lines, mysqldump XML; .gz ok).", required: true),
        OptionSpec("--receipts", .many, valueName: "PATH", help: "Receipts dumps (order_id, receipt, received_at)."),
        OptionSpec("--rules", .one, valueName: "DIR", help: "Rules directory (default ./Rules)."),
        OptionSpec(
            "--environment", .one, help: "Environment of orders that don't say (default production).",
            choices: ["production", "sandbox"]),
        OptionSpec(
            "--ledger", .one, valueName: "URL",
            help: "sqlite:PATH (default sqlite:iapscreen-ledger.sqlite), postgres://… (a libpq URI) or none."),
        OptionSpec("--jobs", .one, valueName: "N", help: "Worker threads (default: the number of cores)."),
        OptionSpec(
            "--allow-empty", .flag,
            help: "An orders dump with no record is an empty night, not a broken export (exit 3 otherwise)."),
    ]

    static let storeEventsOption = OptionSpec(
        "--store-events", .many, valueName: "PATH",
        help: "Store-event logs: App Store notifications, refund history, Google voided purchases, RTDN (.gz ok).")

    struct Stop: Error {
        var status: ExitStatus
    }

    /// `rules`: already loaded (`backtest` loads and checks both of its own first).
    /// `requiresOrders` false (`consumption`): tonight's dumps are optional.
    static func make(
        _ args: ParsedArguments, command spec: CommandSpec, io: Console,
        rules preloaded: RulesDirectory? = nil, requiresOrders: Bool = true
    ) -> Result<ScreenSetup, Stop> {
        let orders = args.many("--orders")
        guard !orders.isEmpty || !requiresOrders else {
            io.usageError(command: spec, "--orders is required: the orders dump(s) to screen")
            return .failure(Stop(status: .usage))
        }
        var jobs = ProcessInfo.processInfo.activeProcessorCount
        if let j = args.one("--jobs") {
            guard let n = Int(j), n >= 1, n <= 256 else {
                io.usageError(command: spec, "--jobs takes a whole number from 1 to 256, not '\(j)'")
                return .failure(Stop(status: .usage))
            }
            jobs = n
        }
        let ledgerSpec: LedgerSpec
        switch LedgerSpec.parse(args) {
        case .success(let l): ledgerSpec = l
        case .failure(let invalid):
            io.usageError(command: spec, invalid.message)
            return .failure(Stop(status: .usage))
        }

        // Rules: every problem at once, nothing written.
        guard let loaded = preloaded ?? io.loadRules(args, command: spec.name, notDone: "nothing was screened"),
            let rules = nightRules(loaded, args, command: spec, io: io)
        else {
            return .failure(Stop(status: .usage))
        }
        var inputs = Night.Inputs(
            orders: orders, receipts: args.many("--receipts"), storeEvents: args.many("--store-events"), jobs: jobs)
        inputs.allowsEmpty = args.has("--allow-empty")
        guard
            io.allReadable(
                inputs.dumps + inputs.storeEvents, command: spec.name,
                consequence: "nothing written, ledger unchanged")
        else {
            return .failure(Stop(status: .unreadableInput))
        }
        return .success(ScreenSetup(inputs: inputs, rules: rules, ledgerSpec: ledgerSpec))
    }

    /// The Rules with their trust files read; nil after saying which file cannot be used.
    private static func nightRules(
        _ rules: RulesDirectory, _ args: ParsedArguments, command spec: CommandSpec, io: Console
    )
        -> NightRules?
    {
        do {
            return try NightRules(rules, defaultProduction: args.one("--environment") != "sandbox")
        } catch {
            io.error(
                "\(error.path): error: \(error.reason)\n    hint: trust/apple holds DER or PEM certificates; trust/google holds <package>.pem or .pub keys"
            )
            io.error("iapscreen \(spec.name): the Rules directory has 1 problem(s); nothing was screened")
            return nil
        }
    }
}

extension Console {
    /// Says why the night stopped and what `consequence` that leaves; the exit status.
    func nightFailed(_ failure: NightFailure, command: String, consequence: String? = nil) -> ExitStatus {
        error("iapscreen \(command): \(failure)" + (consequence.map { "; \($0)" } ?? ""))
        switch failure.kind {
        case .unreadable: return .unreadableInput
        case .ledger(let e): return LockedLedger.status(of: e)
        }
    }
}
