import Foundation
import IAPBasics
import Screening
import Testing

@testable import Ledger

/// A directory of its own for each test, removed afterwards.
final class Scratch {
    let dir = NSTemporaryDirectory() + "ledger-" + UUID().uuidString

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func path(_ name: String) -> String { dir + "/" + name }

    /// A copy of the ledger that iapscreen 3855577 (before schema versions) wrote: `screen`
    /// over `samples --orders 200 --seed 3`, then two `review`s (Tests/Fixtures/Ledger/README.md).
    func schema0Ledger(_ name: String = "old.sqlite") throws -> String {
        let copy = path(name)
        try FileManager.default.copyItem(atPath: Scratch.schema0Fixture, toPath: copy)
        return copy
    }

    static let schema0Fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Ledger/schema0-ledger.sqlite").path
}

/// The file's bytes, to show a refused or failed open left it as it was.
func bytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// SQL straight on a file, beside the ledger: to build odd old files and look at what a
/// ledger wrote. The connection closes before this returns.
func rawSQL(_ path: String, _ sql: String) throws {
    try LedgerFile(path: path).execute(sql)
}

/// The first column of every row of `sql`, as text.
func rawColumn(_ path: String, _ sql: String) throws -> [String] {
    let db = try LedgerFile(path: path)
    let stmt = try db.prepare(sql)
    var out: [String] = []
    while try stmt.step() { out.append(stmt.text(0) ?? "NULL") }
    return out
}

func rawUserVersion(_ path: String) throws -> Int64 {
    try LedgerFile(path: path).userVersion()
}

/// A time `seconds` after 2024-03-01T00:00:00Z.
func at(_ seconds: Int64) -> Timestamp {
    Timestamp(clampingMillis: 1_709_251_200_000 + seconds * 1000)
}

func claim(_ order: String, _ user: String = "u1", _ seconds: Int64 = 0) -> Claim {
    Claim(orderID: order, userID: user, createdAt: at(seconds))
}

/// A run that leaves only what is given.
func night(
    claims: [(String, Claim)] = [], reported: [(String, String)] = [], details: [String: ClaimDetails] = [:],
    refunds: [RememberedRefund] = [], reversals: [(String, Timestamp)] = [], events: [(String, String)] = [],
    consents: [RememberedConsent] = [], flagged: [FlaggedOrderRecord] = []
)
    -> RunRecord
{
    RunRecord(
        startedAt: at(0), finishedAt: at(60), orders: claims.count, flagged: flagged.count,
        newClaims: claims.map { NewClaim(key: $0.0, claim: $0.1, details: details[$0.0] ?? .unknown) },
        reported: reported.map { (orderID: $0.0, rule: $0.1) }, refunds: refunds,
        reversals: reversals.map { (key: $0.0, at: $0.1) },
        events: events.map { (identity: $0.0, type: $0.1) }, consents: consents, flaggedOrders: flagged)
}

/// An order a run flagged, for the desk: one finding of each rule, its line naming the rule.
func flaggedOrder(_ id: String, user: String = "u1", severity: Int = 3, rules: [String], keys: [String] = [])
    -> FlaggedOrderRecord
{
    FlaggedOrderRecord(
        orderID: id, userID: user, platform: "ios", productID: "coins", amount: "4.99", currency: "USD",
        createdAt: "2024-02-29T10:00:00Z", severity: severity, rules: rules.sorted(), transactions: keys,
        receipt: #"[["kind","storekit2"]]"#, findings: rules.map { ($0, #"{"rule":"\#($0)"}"#) })
}

/// Opening `path` must fail with `code`; returns the error for its message.
func openingFails(_ path: String, _ code: LedgerError.Code, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    -> LedgerError?
{
    do {
        _ = try SQLiteLedger(path: path)
        Issue.record("opened \(path)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}
