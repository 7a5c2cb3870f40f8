import Ledger
import Synchronization

/// The desk's ledger connections: a request borrows one for its whole handling and gives it
/// back; a new one is opened when all are lent (libmicrohttpd's threads are few, so the pool
/// stays as small as the server's thread count). A connection that failed is not given back.
public final class DeskStorePool: Sendable {
    public typealias Opener = @Sendable () throws(LedgerError) -> any DeskStore

    private let open: Opener
    private let idle = Mutex<[Connection]>([])

    /// A connection; `@unchecked Sendable` because only one request holds it at a time.
    struct Connection: @unchecked Sendable {
        let store: any DeskStore
    }

    public init(open: @escaping Opener) {
        self.open = open
    }

    /// Runs `body` with a connection of its own.
    func with<T>(_ body: (any DeskStore) throws(LedgerError) -> T) throws(LedgerError) -> T {
        let lent: Connection
        if let idle = idle.withLock({ $0.popLast() }) {
            lent = idle
        } else {
            lent = Connection(store: try open())
        }
        let value = try body(lent.store)
        idle.withLock { $0.append(lent) }
        return value
    }
}
