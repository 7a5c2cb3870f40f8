import Foundation
import Ledger

/// A ledger held by this process for a run that writes it (screen, review, a copy's
/// target): one run at a time. SQLite: its lock file first, then the file. PostgreSQL: the
/// database, then its run lock, a session advisory lock that lives as long as `ledger`.
struct LockedLedger {
    /// SQLite's lock file; nil on PostgreSQL, whose lock is the ledger's session's.
    let lock: LedgerLock?
    let ledger: any LedgerStore

    /// Why a command could not have the ledger: already said on stderr; the exit status to return.
    struct Refusal: Error {
        var status: ExitStatus
    }

    /// Locks and opens the ledger for `command` (nil for `--ledger none`); when another run
    /// holds it, says which process and that `consequence` (exit 4). `creating` false: a
    /// ledger no run has written is refused, not created.
    static func open(
        _ spec: LedgerSpec, command: String, consequence: String, creating: Bool = true,
        io: Console
    ) -> Result<LockedLedger?, Refusal> {
        do {
            switch spec {
            case .none:
                return .success(nil)
            case .sqlite(let path):
                let lock = try LedgerLock(ledgerPath: path)
                return .success(LockedLedger(lock: lock, ledger: try SQLiteLedger(path: path, creating: creating)))
            case .postgres(let uri, _):
                let ledger = try PostgresLedger(uri: uri, creating: creating)
                try ledger.lockForRun()
                return .success(LockedLedger(lock: nil, ledger: ledger))
            }
        } catch let failure as LedgerLock.Failure {
            switch failure {
            case .held(let lockPath, let pid):
                io.error(
                    "iapscreen \(command): the ledger is in use by another run (\(pid.map { "process \($0)" } ?? "unknown process"), lock \(lockPath)); \(consequence)"
                )
                return .failure(Refusal(status: .ledgerBusy))
            case .cannotOpen(let lockPath, let reason):
                io.error("iapscreen \(command): cannot lock the ledger (\(lockPath)): \(reason)")
                return .failure(Refusal(status: .unreadableInput))
            }
        } catch let error as LedgerError {
            io.error("iapscreen \(command): \(error); \(consequence)")
            return .failure(Refusal(status: status(of: error)))
        } catch {
            io.error("iapscreen \(command): \(error); \(consequence)")
            return .failure(Refusal(status: .unreadableInput))
        }
    }

    /// A ledger of a newer schema is a usage error (use the newer iapscreen, docs/ledger.md),
    /// as is one that is not there (the wrong ledger named) and a copy's target that holds
    /// rows; one held by another run is exit 4; anything else that keeps it from being read
    /// or written is exit 3.
    static func status(of error: LedgerError) -> ExitStatus {
        switch error.code {
        case .newerSchema, .empty, .notEmpty, .shardMismatch: .usage
        case .inUse: .ledgerBusy
        default: .unreadableInput
        }
    }
}

/// A ledger only read (explain, ledger status, a copy's source): no lock taken, nothing
/// created, migrated or written, so it works while a run holds the ledger; a SQLite file gets
/// no file beside it either, so a reader who may not write its folder can read it.
enum LedgerReader {
    /// The ledger, or nil when no run has written it yet (no file there, an empty one, a
    /// database without its schema); nil for `--ledger none` too. A ledger that cannot be
    /// read is said on stderr with `consequence`.
    static func open(
        _ spec: LedgerSpec, command: String, consequence: String,
        io: Console
    ) -> Result<(any LedgerStore)?, LockedLedger.Refusal> {
        do {
            switch spec {
            case .none:
                return .success(nil)
            case .sqlite(let path):
                return .success(try SQLiteLedger(path: path, readOnly: true))
            case .postgres(let uri, _):
                return .success(try PostgresLedger(uri: uri, readOnly: true))
            }
        } catch  where error.code == .empty {
            return .success(nil)
        } catch {
            io.error("iapscreen \(command): cannot read the ledger: \(error); \(consequence)")
            return .failure(LockedLedger.Refusal(status: LockedLedger.status(of: error)))
        }
    }
}
