import Foundation
import Ledger

/// `iapscreen ledger copy --from URL --to URL`: every row of one ledger into another that
/// holds nothing, either backend. The source is only read (one snapshot, no lock); the
/// target is held as a run holds it and written in one transaction.
enum LedgerCopy {
    static func run(_ args: ParsedArguments, command spec: CommandSpec, io: Console) -> ExitStatus {
        for option in ["--from", "--to"] where args.one(option) == nil {
            io.usageError(
                command: spec,
                "\(option) is required: ledger copy --from URL --to URL, e.g. "
                    + "--from \(LedgerSpec.defaultText) --to postgres://user@host/db")
            return .usage
        }
        guard let from = LedgerCommand.place(args, "--from", command: spec, io: io),
            let to = LedgerCommand.place(args, "--to", command: spec, io: io)
        else { return .usage }
        let name = "iapscreen ledger copy"
        let source: any LedgerStore
        switch LedgerCommand.read(from, command: "ledger copy", consequence: "nothing copied", io: io) {
        case .success(let l): source = l
        case .failure(let refusal): return refusal.status
        }
        // A file this copy creates is removed again when the copy fails: nothing written.
        var created: String?
        if case .sqlite(let path) = to, !FileManager.default.fileExists(atPath: path) { created = path }
        var held: LockedLedger?
        switch LockedLedger.open(to, command: "ledger copy", consequence: "nothing copied", io: io) {
        case .success(let l): held = l
        // Not held: whatever is there is another run's.
        case .failure(let refusal): return refusal.status
        }
        do {
            guard let copied = try held?.ledger.copy(from: source) else { return .usage }
            io.error("\(name): copied \(copied) from \(from.shown) to \(to.shown)")
            return .ok
        } catch {
            let said = error.message.contains("nothing copied") ? "" : "; nothing copied"
            io.error("\(name): \(error)\(said)")
            // Let go of the target (its file, its lock) before removing a file made for it.
            held = nil
            if let created {
                for suffix in ["", "-wal", "-shm", ".lock"] {
                    try? FileManager.default.removeItem(atPath: created + suffix)
                }
            }
            return LockedLedger.status(of: error)
        }
    }
}
