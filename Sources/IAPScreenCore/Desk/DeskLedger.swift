import Desk
import Ledger

/// The ledger as the desk opens it: created or migrated once through the ledger itself (a
/// desk before any run starts an empty ledger), then a desk connection per thread.
enum DeskLedger {
    /// Opens the ledger at `place` for the desk (exit 3 when it cannot be, said here), giving
    /// the opener of its connections.
    static func open(_ place: LedgerSpec, command: String, io: Console) -> DeskStorePool.Opener? {
        do throws(LedgerError) {
            switch place {
            case .none:
                io.error("iapscreen \(command): --ledger none keeps no desk: name the ledger screen writes")
                return nil
            case .sqlite(let path):
                _ = try SQLiteLedger(path: path)
                _ = try SQLiteDeskStore(path: path)
                return { () throws(LedgerError) -> any DeskStore in try SQLiteDeskStore(path: path) }
            case .postgres(let uri, _):
                _ = try PostgresLedger(uri: uri)
                _ = try PostgresDeskStore(uri: uri)
                return { () throws(LedgerError) -> any DeskStore in try PostgresDeskStore(uri: uri) }
            }
        } catch {
            io.error("iapscreen \(command): cannot open the ledger: \(error)")
            return nil
        }
    }
}
