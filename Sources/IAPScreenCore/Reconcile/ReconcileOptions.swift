import IAPBasics
import ReceiptVerification
import Reconciliation
import Screening

extension ReconcileCommand {
    /// `--from`, `--until` and `--tolerance-days`; nil after a usage error is said.
    static func window(_ args: ParsedArguments, io: Console) -> DayWindow? {
        var window = DayWindow()
        for (flag, assign) in [
            ("--from", { (d: Int) in window.from = d }), ("--until", { (d: Int) in window.until = d }),
        ] {
            guard let text = args.one(flag) else { continue }
            guard let day = CalendarDay.parse(text) else {
                io.usageError(command: spec, "\(flag) takes a date as YYYY-MM-DD, not '\(text)'")
                return nil
            }
            assign(day)
        }
        if let from = window.from, let until = window.until, from > until {
            io.usageError(command: spec, "--from \(CalendarDay.text(from)) is after --until \(CalendarDay.text(until))")
            return nil
        }
        if let text = args.one("--tolerance-days") {
            guard let n = Int(text), n >= 0, n <= 366 else {
                io.usageError(
                    command: spec, "--tolerance-days takes a whole number of days from 0 to 366, not '\(text)'")
                return nil
            }
            window.tolerance = n
        }
        return window
    }

    /// The Rules' trust, read for the store events' signatures; nil after saying which file cannot be used.
    static func verifier(_ rules: RulesDirectory, io: Console) -> ReceiptVerifier? {
        do {
            return try ReceiptVerifier(appleAnchorFiles: rules.appleTrustFiles, googleKeyFiles: rules.googleKeyFiles)
        } catch {
            io.error("\(error.path): error: \(error.reason)")
            io.error("iapscreen reconcile: the Rules directory has 1 problem(s); nothing was reconciled")
            return nil
        }
    }
}
