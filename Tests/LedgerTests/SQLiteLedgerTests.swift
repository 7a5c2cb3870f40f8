import Foundation
import IAPBasics
import Ledger
import Screening
import Testing

@Suite("SQLite ledger")
final class SQLiteLedgerTests {
    let dir = NSTemporaryDirectory() + "ledger-" + UUID().uuidString

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func claim(_ order: String, _ user: String = "u1") -> Claim {
        Claim(orderID: order, userID: user, createdAt: Timestamp(millis: 1_709_294_400_000)!)
    }

    func run(_ claims: [(String, Claim)], reported: [(String, String)] = []) -> RunRecord {
        RunRecord(startedAt: Timestamp(millis: 0)!, finishedAt: Timestamp(millis: 1000)!, orders: claims.count, flagged: 0,
                  newClaims: claims.map { NewClaim(key: $0.0, claim: $0.1) }, reported: reported.map { (orderID: $0.0, rule: $0.1) })
    }

    @Test("claims survive reopening, and the first taker of a transaction stays its owner")
    func firstTakerWins() throws {
        let path = dir + "/l.sqlite"
        do {
            let ledger = try SQLiteLedger(path: path)
            try ledger.record(run([("apple:1", claim("o1"))]))
            try ledger.record(run([("apple:1", claim("o2")), ("apple:2", claim("o3"))]))
        }
        let reopened = try SQLiteLedger(path: path)
        let found = try reopened.claims(of: ["apple:1", "apple:2", "apple:3"])
        #expect(found["apple:1"]?.orderID == "o1")
        #expect(found["apple:2"]?.orderID == "o3")
        #expect(found["apple:3"] == nil)
        #expect(found["apple:1"]?.createdAt == Timestamp(millis: 1_709_294_400_000))
    }

    @Test("reported findings and review verdicts are remembered")
    func reportedAndReviews() throws {
        let ledger = try SQLiteLedger(path: dir + "/r.sqlite")
        #expect(try !ledger.wasReported(orderID: "o1", rule: "revoked"))
        try ledger.record(run([], reported: [("o1", "revoked")]))
        #expect(try ledger.wasReported(orderID: "o1", rule: "revoked"))
        #expect(try !ledger.wasReported(orderID: "o1", rule: "item-id-mismatch"))
        try ledger.recordReview(orderID: "o1", Review(verdict: "legit", note: "refund reversed", by: "ana", at: "2024-03-02T09:00:00Z"))
        #expect(try ledger.review(of: "o1")?.verdict == "legit")
        try ledger.recordReview(orderID: "o1", Review(verdict: "fraud", note: nil, by: nil, at: "2024-03-03T09:00:00Z"))
        #expect(try ledger.review(of: "o1") == Review(verdict: "fraud", note: nil, by: nil, at: "2024-03-03T09:00:00Z"))
    }

    @Test("a second run on the same ledger is refused and told which process holds it")
    func lock() throws {
        let path = dir + "/lock.sqlite"
        let first = try LedgerLock(ledgerPath: path)
        #expect(throws: LedgerLock.Failure.self) { try LedgerLock(ledgerPath: path) }
        do {
            _ = try LedgerLock(ledgerPath: path)
        } catch {
            guard case .held(_, let pid) = error else { Issue.record("expected held"); return }
            #expect(pid == String(getpid()))
        }
        _ = first
    }
}
