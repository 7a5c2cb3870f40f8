import Foundation
import IAPBasics
import Ledger
import PostgresClient
import Screening

/// `ledger N`: a night of N new claims recorded in each ledger, then the lookups a next night
/// makes — N keys, half of them known — as claims, and as claims with what each order bought.
/// PostgreSQL when IAPSCREEN_BENCH_POSTGRES names a server (a superuser URI, e.g. from
/// `scripts/postgres-test-cluster.sh start`): each run gets a database of its own, dropped after.
func runLedgerBenchmark(claims count: Int, say: (String) -> Void) {
    let start: Int64 = 1_709_251_200_000
    let claims = (0..<count).map { (i: Int) -> NewClaim in
        let apple = i % 2 == 0
        let key = apple ? String(100_000_000_000_000 + i) : "g:GPA.\(3_000 + i % 7_000)-\(i)"
        let at = Timestamp(clampingMillis: start + Int64(i) * 1_000, hasMilliseconds: false)
        let claim = Claim(orderID: "ORD-\(10_000_000 + i)", userID: "user-\(i % 97_003)", createdAt: at)
        let details = ClaimDetails(
            productID: "gems_100", amount: "0.99", currency: "USD",
            purchaseToken: apple ? nil : "tok.\(i)", platform: apple ? "ios" : "android")
        return NewClaim(key: key, claim: claim, details: details)
    }
    // A next night's keys: every other one known, the rest never taken.
    let lookups = (0..<count).map { i in i % 2 == 0 ? claims[i].key : "g:GPA.unknown-\(i)" }
    say("ledger: \(count) new claims recorded, then \(count) keys looked up (half known)")

    let scratch = NSTemporaryDirectory() + "iapscreen-bench-ledger-\(getpid()).sqlite"
    defer {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: scratch + suffix) }
    }
    measure("SQLite", say: say, claims: claims, lookups: lookups) { try SQLiteLedger(path: scratch) }

    guard let server = ProcessInfo.processInfo.environment["IAPSCREEN_BENCH_POSTGRES"], !server.isEmpty else {
        say("  PostgreSQL: skipped (IAPSCREEN_BENCH_POSTGRES=$(scripts/postgres-test-cluster.sh start) runs it)")
        return
    }
    let name = "bench_ledger_\(getpid())"
    guard var parts = URLComponents(string: server) else {
        say("  PostgreSQL: IAPSCREEN_BENCH_POSTGRES is no URI")
        return
    }
    parts.path = "/" + name
    guard let uri = parts.string else { return }
    do {
        try PostgresConnection(uri: server).execute("CREATE DATABASE \(name)")
    } catch {
        say("  PostgreSQL: cannot create a database: \(error)")
        return
    }
    defer { try? PostgresConnection(uri: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    measure("PostgreSQL", say: say, claims: claims, lookups: lookups) { try PostgresLedger(uri: uri) }
}

private func measure(
    _ name: String, say: (String) -> Void, claims: [NewClaim], lookups: [String],
    open: () throws -> any LedgerStore
) {
    do {
        let ledger = try open()
        let now = Timestamp(clampingMillis: 1_709_337_600_000, hasMilliseconds: false)
        let run = RunRecord(
            startedAt: now, finishedAt: now, orders: claims.count, flagged: 0, newClaims: claims, reported: [])
        let written = try timed { try ledger.record(run) }
        var found = 0
        let looked = try timed { found = try ledger.claims(of: lookups).count }
        var detailed = 0
        let withDetails = try timed { detailed = try ledger.claimsWithDetails(of: lookups).count }
        func rate(_ seconds: Double) -> String { String(Int(Double(claims.count) / max(seconds, 1e-9))) }
        say(
            "  \(name): record \(format2(written)) s (\(rate(written)) claims/s); claims lookup \(format2(looked)) s "
                + "(\(rate(looked)) keys/s, \(found) found); with details \(format2(withDetails)) s (\(rate(withDetails)) keys/s, \(detailed) found)"
        )
    } catch {
        say("  \(name): \(error)")
    }
}

private func timed(_ body: () throws -> Void) throws -> Double {
    let start = SystemClock.monotonicSeconds()
    try body()
    return SystemClock.monotonicSeconds() - start
}
