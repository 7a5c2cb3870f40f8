import Foundation
import Ledger
import Testing

@Suite("SQLite ledger lock")
struct SQLiteLedgerTests {
    @Test("a second run on the same ledger is refused and told which process holds it")
    func lock() throws {
        let scratch = try Scratch()
        let path = scratch.path("lock.sqlite")
        let first = try LedgerLock(ledgerPath: path)
        #expect(throws: LedgerLock.Failure.self) { try LedgerLock(ledgerPath: path) }
        do {
            _ = try LedgerLock(ledgerPath: path)
        } catch {
            guard case .held(_, let pid) = error else {
                Issue.record("expected held")
                return
            }
            #expect(pid == String(getpid()))
        }
        _ = first
    }
}
