import Foundation
import IAPBasics
import Ledger

/// `iapscreen review`: a reviewer's verdict on an order, kept in the ledger. The next
/// screen run marks the order's findings `reviewed` with it; a `legit` verdict keeps the
/// order visible in the reports but takes it out of `flagged`, money at risk and `--fail-on`.
enum ReviewCommand {
    static let spec = CommandSpec(
        name: "review",
        summary: "Record a reviewer's verdict on a flagged order in the ledger.",
        options: [
            OptionSpec(
                "--order", .one, valueName: "ID", help: "The order (its order_id, as the reports print it). Required."),
            OptionSpec(
                "--verdict", .one, help: "fraud, or legit (no longer counts as flagged). Required.",
                choices: ["fraud", "legit"]),
            OptionSpec("--note", .one, valueName: "TEXT", help: "Why, in words (shown in the reports)."),
            OptionSpec("--by", .one, valueName: "NAME", help: "Who decided (default: the login name)."),
            OptionSpec(
                "--ledger", .one, valueName: "URL",
                help: "sqlite:PATH (default sqlite:iapscreen-ledger.sqlite) or postgres://… (a libpq URI)."),
        ],
        details: """
            The order must be known to the ledger: a finding on it reported by a completed screen
            run, or a store transaction it took. A later verdict on the same order replaces the
            earlier one; screen runs never change verdicts.
            Exit status: 0 recorded; 2 bad usage or an order the ledger does not know; 3 the ledger
            cannot be read; 4 the ledger is in use by another run.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        guard let order = args.one("--order") else {
            io.usageError(command: spec, "--order is required: the order_id the verdict is about")
            return .usage
        }
        guard let verdict = args.one("--verdict") else {
            io.usageError(command: spec, "--verdict is required: fraud or legit")
            return .usage
        }
        let place: LedgerSpec
        switch LedgerSpec.parse(args) {
        case .success(.none):
            io.usageError(
                command: spec,
                "--ledger none keeps no verdicts: name the ledger screen uses, e.g. \(LedgerSpec.defaultText)")
            return .usage
        case .success(let p): place = p
        case .failure(let invalid):
            io.usageError(command: spec, invalid.message)
            return .usage
        }
        if case .sqlite(let path) = place, !FileManager.default.fileExists(atPath: path) {
            io.usageError(
                command: spec,
                "there is no ledger at \(path): review records verdicts in the ledger screen wrote; no verdict recorded"
            )
            return .usage
        }
        // The ledger screen wrote, never a new one: review records verdicts on what it found.
        let held: LockedLedger
        switch LockedLedger.open(place, command: spec.name, consequence: "no verdict recorded", creating: false, io: io)
        {
        case .success(let l?): held = l
        case .success(nil): return .usage
        case .failure(let refusal): return refusal.status
        }
        do {
            guard try held.ledger.knows(orderID: order) else {
                io.usageError(
                    command: spec,
                    "order '\(order)' is unknown to the ledger \(place.shown): no screen run on it reported a finding "
                        + "on that order or saw it take a transaction; check the order_id (as findings.jsonl prints it) and --ledger"
                )
                return .usage
            }
            let earlier = try held.ledger.review(of: order)
            let by = args.one("--by") ?? loginName()
            let review = Review(verdict: verdict, note: args.one("--note"), by: by, at: SystemClock.now().iso8601)
            try held.ledger.recordReview(orderID: order, review)
            var said = "iapscreen review: order '\(order)' recorded as \(verdict)"
            if let by { said += " by \(by)" }
            said += " at \(review.at)"
            if let earlier {
                said += " (replaces \(earlier.verdict)\(earlier.by.map { " by \($0)" } ?? "") at \(earlier.at))"
            }
            io.error(said + "; the next screen run on this ledger marks it reviewed")
            return .ok
        } catch {
            io.error("iapscreen review: \(error); no verdict recorded")
            return .unreadableInput
        }
    }

    /// The login name, from the environment a shell sets.
    static func loginName() -> String? {
        let env = ProcessInfo.processInfo.environment
        for key in ["USER", "LOGNAME"] {
            if let name = env[key], !name.isEmpty { return name }
        }
        return nil
    }
}
