import Foundation
import Ledger
import ReceiptVerification
import Screening

/// What `screen` and `explain` both make of their input flags: the inputs, the Rules and
/// their trust, the ledger's address and the per-order screening. A problem is printed
/// here and comes back as the exit status to end with.
struct ScreenSetup {
    let orders: [String]
    let receipts: [String]
    let jobs: Int
    let rules: RulesDirectory
    let verifier: ReceiptVerifier
    let ledgerSpec: LedgerSpec
    let resolver: OrderResolver
    let evaluator: RuleEvaluator
    let screening: ReceiptScreening

    /// The input flags `screen` and `explain` share.
    static let inputOptions: [OptionSpec] = [
        OptionSpec(
            "--orders", .many, valueName: "PATH",
            help: "Orders dumps (CSV/TSV, JSON Lines, mysqldump XML; .gz ok). Required."),
        OptionSpec("--receipts", .many, valueName: "PATH", help: "Receipts dumps (order_id, receipt, received_at)."),
        OptionSpec("--rules", .one, valueName: "DIR", help: "Rules directory (default ./Rules)."),
        OptionSpec(
            "--environment", .one, help: "Environment of orders that don't say (default production).",
            choices: ["production", "sandbox"]),
        OptionSpec(
            "--ledger", .one, valueName: "URL",
            help: "sqlite:PATH (default sqlite:iapscreen-ledger.sqlite), postgres://… (a libpq URI) or none."),
        OptionSpec("--jobs", .one, valueName: "N", help: "Worker threads (default: the number of cores)."),
    ]

    struct Stop: Error {
        var status: ExitStatus
    }

    /// `rules`: already loaded (`backtest` loads and checks both of its own first).
    static func make(
        _ args: ParsedArguments, command spec: CommandSpec, io: Console,
        rules preloaded: RulesDirectory? = nil
    ) -> Result<ScreenSetup, Stop> {
        let name = "iapscreen \(spec.name)"
        let orders = args.many("--orders")
        guard !orders.isEmpty else {
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
        guard let rules = preloaded ?? io.loadRules(args, command: spec.name, notDone: "nothing was screened") else {
            return .failure(Stop(status: .usage))
        }
        let verifier: ReceiptVerifier
        do {
            verifier = try ReceiptVerifier(
                appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
        } catch {
            io.error(
                "\(error.path): error: \(error.reason)\n    hint: trust/apple holds DER or PEM certificates; trust/google holds <package>.pem or .pub keys"
            )
            io.error("\(name): the Rules directory has 1 problem(s); nothing was screened")
            return .failure(Stop(status: .usage))
        }
        let receipts = args.many("--receipts")
        guard io.allReadable(orders + receipts, command: spec.name, consequence: "nothing written, ledger unchanged")
        else {
            return .failure(Stop(status: .unreadableInput))
        }
        let resolver = OrderResolver(catalog: rules.catalog, defaultProduction: args.one("--environment") != "sandbox")
        let evaluator = RuleEvaluator(rules: rules)
        let screening = ReceiptScreening(
            resolver: resolver, evaluator: evaluator, limits: .standard,
            verify: { verifier.verify($0) })
        return .success(
            ScreenSetup(
                orders: orders, receipts: receipts, jobs: jobs, rules: rules, verifier: verifier,
                ledgerSpec: ledgerSpec, resolver: resolver, evaluator: evaluator, screening: screening))
    }
}
