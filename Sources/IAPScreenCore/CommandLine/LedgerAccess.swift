import Ledger

/// An SQLite ledger held by this process: the lock first (one run at a time), then the file.
struct LockedLedger {
    let lock: LedgerLock
    let ledger: SQLiteLedger

    /// Why a command could not have the ledger: already said on stderr; the exit status to return.
    struct Refusal: Error {
        var status: ExitStatus
    }

    /// Locks and opens the ledger at `path` for `command`; when another run holds it, says
    /// which process and that `consequence` (exit 4).
    static func open(_ path: String, command: String, consequence: String, io: Console) -> Result<LockedLedger, Refusal> {
        do {
            let lock = try LedgerLock(ledgerPath: path)
            return .success(LockedLedger(lock: lock, ledger: try SQLiteLedger(path: path)))
        } catch let failure as LedgerLock.Failure {
            switch failure {
            case .held(let lockPath, let pid):
                io.error("iapscreen \(command): the ledger is in use by another run (\(pid.map { "process \($0)" } ?? "unknown process"), lock \(lockPath)); \(consequence)")
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

    /// A ledger of a newer schema is a usage error (use the newer iapscreen, CONTRACT §10);
    /// anything else that keeps it from being read is exit 3.
    static func status(of error: LedgerError) -> ExitStatus {
        error.code == .newerSchema ? .usage : .unreadableInput
    }
}
