import Foundation
import IAPBasics
import Ledger
import Night
import ReceiptFormats
import Screening

/// `iapscreen explain --order ID`: why one order was (not) flagged. It reads the same
/// inputs as `screen` and makes the night's claims the same way (whether an order replays
/// another depends on every order before it), then prints, for that order, the receipt
/// entry it got and why, what the ledger remembered, every rule's conclusion with the
/// values it compared, and the reviewer exemption. It never writes the ledger.
enum ExplainCommand {
    static let spec = CommandSpec(
        name: "explain",
        summary: "Say why one order was flagged or not: every rule, its receipt entry, the ledger, exemptions.",
        options: [OptionSpec("--order", .one, valueName: "ID", help: "The order to explain. Required.")]
            + ScreenSetup.inputOptions + [ScreenSetup.storeEventsOption, RequestAnswers.nowOption],
        details: """
            Prints to stdout. The whole night is read, as screen reads it, because whether an order
            replays a transaction depends on the orders credited before it and on the ledger,
            which explain reads and never writes.
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

        let watched = WatchedOrder(orderID)
        let night: Night
        let claims: NightScreener.Claims
        let requests: RequestLines?
        let slot: Int
        do {
            night = try Night(setup.inputs, rules: setup.rules, ledger: ledger, watching: watched)
            try night.load()
            guard let found = night.slot(of: orderID) else {
                let inputs = setup.inputs.dumps.joined(separator: ", ")
                io.error(
                    "iapscreen explain: order '\(orderID)' is not in the orders dumps (\(inputs)); "
                        + "a row too broken to read has no order id: see malformed-record findings")
                return .usage
            }
            slot = found
            claims = try night.claims(watching: Int32(found))
            requests = RequestLines(
                try night.refundRequests(using: claims), orderID: orderID,
                settings: setup.rules.rules.settings.consumption, now: now)
        } catch {
            return io.nightFailed(error, command: spec.name)
        }
        let explanation = OrderExplanation(
            night: night, slot: slot, watched: watched, rules: setup.rules, claims: claims, ledger: ledger,
            ledgerNote: ledgerNote, events: night.events, requests: requests)
        io.out.write(explanation.text())
        return .ok
    }
}
