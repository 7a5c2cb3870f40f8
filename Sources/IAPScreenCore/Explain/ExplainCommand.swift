import Foundation
import IAPBasics
import Ledger
import Night
import ReceiptFormats
import Screening

/// `iapscreen explain --order ID`: why one order was (not) flagged. Whether an order replays
/// another depends on every order before it, so the answer needs the whole night's claims:
/// from the index `screen` left in `--out` when it answers for these inputs, else by reading
/// and claiming the night again as `screen` does (saying why on stderr). Then it prints, for
/// that order, the receipt entry it got and why, what the ledger remembered, every rule's
/// conclusion with the values it compared, and the reviewer exemption. It never writes the ledger.
enum ExplainCommand {
    static let spec = CommandSpec(
        name: "explain",
        summary: "Say why one order was flagged or not: every rule, its receipt entry, the ledger, exemptions.",
        options: [
            OptionSpec("--order", .one, valueName: "ID", help: "The order to explain.", required: true),
            OptionSpec(
                "--out", .one, valueName: "DIR",
                help: "The folder screen wrote, whose explain index answers at once (default ./iapscreen-report)."),
        ] + ScreenSetup.inputOptions + [ScreenSetup.storeEventsOption, RequestAnswers.nowOption],
        details: """
            Prints to stdout. Whether an order replays a transaction depends on the orders credited
            before it and on the ledger, which explain reads and never writes: the index screen left
            in --out answers when it was made from the same inputs, Rules, --environment and store
            events, and the ledger's last run is the one screen recorded; else the whole night is read
            again, as screen reads it, and a line on stderr says why. Either way the text is the same.
            Exit status: 0 explained; 2 bad usage, bad Rules or an order not in the dumps;
            3 an input could not be read.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        guard let orderID = args.one("--order"), !orderID.isEmpty else {
            io.usageError(command: spec, "--order is required: the order id to explain")
            return .usage
        }
        guard let now = RequestAnswers.now(args, command: spec, io: io, otherwise: SystemClock.now()) else {
            return .usage
        }
        let setup: ScreenSetup
        switch ScreenSetup.make(args, command: spec, io: io) {
        case .success(let s): setup = s
        case .failure(let stop): return stop.status
        }
        // Read only: a ledger that does not exist yet is not created, and no run's lock is taken.
        let ledger: (any LedgerStore)?
        switch LedgerReader.open(setup.ledgerSpec, command: spec.name, consequence: "nothing explained", io: io) {
        case .success(let l): ledger = l
        case .failure(let refusal): return refusal.status
        }
        let ledgerNote: String
        switch (setup.ledgerSpec, ledger) {
        case (.none, _): ledgerNote = "no ledger (--ledger none)"
        case (.sqlite(let path), nil): ledgerNote = "no ledger yet at \(path) (no earlier run)"
        case (.postgres(_, let target), nil):
            ledgerNote = "no ledger yet in \(target) (no schema iapscreen: no earlier run)"
        case (.sqlite(let path), _?): ledgerNote = "ledger \(path)"
        case (.postgres(_, let target), _?): ledgerNote = "ledger \(target)"
        }
        let words = { (order: ExplainedOrder) in
            OrderExplanation(order: order, rules: setup.rules, ledger: ledger, ledgerNote: ledgerNote, now: now)
        }

        let outDir = args.one("--out") ?? "iapscreen-report"
        switch IndexedExplanation.answer(orderID, setup: setup, ledger: ledger, outDir: outDir, words: words) {
        case .explained(let text):
            io.out.write(text)
            return .ok
        case .notInDumps:
            return notInDumps(orderID, setup, io: io)
        case .refused(let why):
            io.error("iapscreen explain: not using the index in \(outDir): \(why); reading the whole night again")
        }
        return screenedAgain(orderID, setup: setup, ledger: ledger, io: io, words: words)
    }

    /// The answer from the night read and claimed again, as `screen` does.
    private static func screenedAgain(
        _ orderID: String, setup: ScreenSetup, ledger: (any LedgerStore)?, io: Console,
        words: (ExplainedOrder) -> OrderExplanation
    ) -> ExitStatus {
        let watched = WatchedOrder(orderID)
        let explained: ExplainedOrder
        do {
            let night = try Night(setup.inputs, rules: setup.rules, ledger: ledger, watching: watched)
            try night.load()
            guard let slot = night.slot(of: orderID) else { return notInDumps(orderID, setup, io: io) }
            let claims = try night.claims(watching: Int32(slot))
            let stored = night.order(at: slot)
            explained = ExplainedOrder(
                row: stored.row, position: stored.position, receiptPlatform: stored.receiptPlatform,
                receipt: watched.receipt, selection: claims.watched, evaluator: claims.evaluator,
                eventFindings: claims.events?.bySlot[Int32(slot)] ?? [], isTonight: { night.slot(of: $0) != nil },
                events: night.events.map { events in
                    (events.counts.read, { StoreEventWords.lines(events, naming: $0) })
                },
                requests: RequestWords.of(
                    order: orderID, in: try night.refundRequests(using: claims),
                    settings: setup.rules.rules.settings.consumption))
        } catch {
            return io.nightFailed(error, command: spec.name)
        }
        do {
            io.out.write(try words(explained).text())
        } catch {
            io.error("iapscreen explain: \(error)")
            return .unreadableInput
        }
        return .ok
    }

    private static func notInDumps(_ orderID: String, _ setup: ScreenSetup, io: Console) -> ExitStatus {
        let orders = setup.inputs.orders.joined(separator: ", ")
        let receipts = setup.inputs.receipts
        // A receipts dump adds receipts to orders, never an order: named apart, not as an orders dump.
        let receiptsSaid =
            receipts.isEmpty
            ? ""
            : receipts.count == 1
                ? "the receipts dump (\(receipts.joined())) holds receipts, not orders; "
                : "the receipts dumps (\(receipts.joined(separator: ", "))) hold receipts, not orders; "
        io.error(
            "iapscreen explain: order '\(orderID)' is not in the orders dumps (\(orders)); \(receiptsSaid)"
                + "a row too broken to read has no order id: see malformed-record findings")
        return .usage
    }
}
