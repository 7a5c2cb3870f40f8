import Foundation
import IAPBasics
import Ledger

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen review`: a reviewer's verdict on an order, kept in the ledger. The next
/// screen run marks the order's findings `reviewed` with it; a `legit` verdict keeps the
/// order visible in the reports but takes it out of `flagged`, money at risk and `--fail-on`.
enum ReviewCommand {
    static let spec = CommandSpec(
        name: "review",
        summary: "Record a reviewer's verdict on a flagged order in the ledger.",
        options: [
            OptionSpec(
                "--order", .one, valueName: "ID", help: "The order (its order_id, as the reports print it).",
                required: true),
            OptionSpec(
                "--verdict", .one, help: "fraud, or legit (no longer counts as flagged).", choices: ["fraud", "legit"],
                required: true),
            OptionSpec("--note", .one, valueName: "TEXT", help: "Why, in words (shown in the reports)."),
            OptionSpec(
                "--by", .one, valueName: "NAME",
                help: "Who decided (default: the login name: USER, LOGNAME, else the uid's name; none is exit 2)."),
            OptionSpec(
                "--ledger", .one, valueName: "URL",
                help: "sqlite:PATH (default sqlite:iapscreen-ledger.sqlite) or postgres://… (a libpq URI)."),
        ],
        details: """
            The order must be known to the ledger: a finding on it reported by a completed screen
            run, or a store transaction it took. A later verdict on the same order replaces the
            earlier one; screen runs never change verdicts.
            A verdict always has an author: with no --by and no login name, nothing is recorded.
            Exit status: 0 recorded; 2 bad usage, no author, or an order the ledger does not know;
            3 the ledger cannot be read; 4 the ledger is in use by another run.
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
        // Never a verdict without an author: asked before the ledger is opened.
        if let given = args.one("--by"), given.allSatisfy(\.isWhitespace) {
            io.usageError(command: spec, "--by needs a name, not only spaces; no verdict recorded")
            return .usage
        }
        guard let by = args.one("--by") ?? loginName() else {
            io.usageError(
                command: spec,
                "who decides? there is no login name (no USER or LOGNAME, and no name for uid \(getuid())): "
                    + "pass --by NAME; no verdict recorded")
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
            let review = Review(verdict: verdict, note: args.one("--note"), by: by, at: SystemClock.now().iso8601)
            try held.ledger.recordReview(orderID: order, review)
            var said = "iapscreen review: order '\(order)' recorded as \(verdict) by \(by) at \(review.at)"
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

    /// The login name: from the environment a shell sets, else (cron, containers) the name
    /// the user database gives this process's uid; nil when neither has one.
    static func loginName() -> String? {
        let env = ProcessInfo.processInfo.environment
        for key in ["USER", "LOGNAME"] {
            if let name = env[key], !name.isEmpty { return name }
        }
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }
}
