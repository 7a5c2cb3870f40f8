import Foundation
import IAPBasics
import Ledger
import Night
import Reporting

/// `iapscreen consumption`: what we tell Apple of each open refund request (docs/consumption.md).
/// Reads the store-event logs, the ledger read-only and without its lock (it runs while a
/// `screen` runs: an hourly cron meets Apple's 12 hours), and optionally tonight's dumps.
enum ConsumptionCommand {
    static let spec = CommandSpec(
        name: "consumption",
        summary: "Answer Apple's refund requests (CONSUMPTION_REQUEST): consumption.jsonl, one PUT body each.",
        options: [
            OptionSpec(
                "--store-events", .many, valueName: "PATH",
                help: "Store-event logs holding the App Store's notifications (.gz ok).", required: true),
            OptionSpec(
                "--orders", .many, valueName: "PATH",
                help: "Tonight's orders dumps, for orders the ledger does not hold yet (optional)."),
        ] + ScreenSetup.inputOptions.filter { $0.name != "--orders" } + [
            RequestAnswers.nowOption,
            OptionSpec(
                "--out", .one, valueName: "DIR",
                help: "Where consumption.jsonl and summary.json go (default ./iapscreen-consumption)."),
            OptionSpec("--quiet", .flag, help: "Print nothing, not even the summary line."),
            MetricsFile.option,
        ],
        details: """
            One line per refund request whose 12-hour deadline is after --now, each request once
            (by notificationUUID), with the PUT path, the ConsumptionRequest body (null without the
            user's consent) and why, field by field. A request past its deadline is counted late; one
            that does not verify, or names another app, is counted invalid and never answered. The
            ledger is read, never written, and no run's lock is taken.
            Exit status: 0 done; 2 bad usage or Rules; 3 an input or the ledger could not be read.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let started = SystemClock.now()
        let startedMonotonic = SystemClock.monotonicSeconds()
        var figures: RequestFigures?
        let status = answer(args, io: io, started: started, figures: &figures)
        if let path = args.one("--metrics"), status != .usage {
            let finished = SystemClock.now()
            MetricsFile.write(
                RunMetrics(
                    finishedAt: finished, durationSeconds: SystemClock.monotonicSeconds() - startedMonotonic,
                    exitStatus: status.rawValue, lastSuccess: status == .ok ? finished : nil,
                    figures: figures.map { RunMetrics.Figures(requests: $0) }),
                to: path, command: spec.name, io: io)
        }
        return status
    }

    private static func answer(
        _ args: ParsedArguments, io: Console, started: Timestamp, figures: inout RequestFigures?
    ) -> ExitStatus {
        guard !args.many("--store-events").isEmpty else {
            io.usageError(command: spec, "--store-events is required: the logs that hold the refund requests")
            return .usage
        }
        guard let now = RequestAnswers.now(args, command: spec, io: io, otherwise: started) else { return .usage }
        let setup: ScreenSetup
        switch ScreenSetup.make(args, command: spec, io: io, requiresOrders: false) {
        case .success(let s): setup = s
        case .failure(let stop): return stop.status
        }
        let consequence = "nothing written"
        let ledger: (any LedgerStore)?
        switch LedgerReader.open(setup.ledgerSpec, command: spec.name, consequence: consequence, io: io) {
        case .success(let l): ledger = l
        case .failure(let refusal): return refusal.status
        }
        let answers: RequestAnswers
        let night: Night
        do {
            night = try Night(setup.inputs, rules: setup.rules, ledger: ledger)
            try night.load()
            answers =
                RequestAnswers.make(
                    try night.refundRequests(), invalid: night.events?.invalidRequests ?? 0,
                    settings: setup.rules.rules.settings.consumption, now: now) ?? RequestAnswers()
        } catch {
            return io.nightFailed(error, command: spec.name, consequence: consequence)
        }
        let outDir = args.one("--out") ?? "iapscreen-consumption"
        let summary = ConsumptionOutputs.summary(
            answers, night: night, started: started, finished: SystemClock.now(), now: now)
        do {
            try ConsumptionOutputs.write(answers, summary: summary, into: outDir)
        } catch {
            io.error("iapscreen consumption: cannot write \(outDir): \(error); nothing written")
            return .unreadableInput
        }
        figures = answers.figures
        if !args.has("--quiet") { io.error("iapscreen consumption: \(answers.text); consumption.jsonl in \(outDir)") }
        return .ok
    }
}
