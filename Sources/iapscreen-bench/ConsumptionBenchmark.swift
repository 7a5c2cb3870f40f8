import Foundation
import IAPBasics
import Ledger
import ReceiptBuilder
import Screening

/// `consumption N [CLAIMS]`: N refund requests, every one signed (the notification and its
/// transaction, ES256) and verified, answered by `iapscreen consumption` against a SQLite
/// ledger of CLAIMS claims (default 10⁶) and their users' consents, without tonight's dumps:
/// what the hourly cron costs. Four requests in five name a transaction the ledger holds, one in
/// ten a transaction no order took with a user's id as its account token, one in ten neither.
/// The ledger, the log and the Rules are cached under /tmp; the answering runs twice.
func runConsumptionBenchmark(requests count: Int, claims: Int, say: (String) -> Void) {
    var lines: [String] = []
    guard let tool = iapscreenTool(&lines) else { return lines.forEach(say) }
    let dir = NSTemporaryDirectory() + "iapscreen-bench-consumption-\(count)-\(claims)"
    let ready = dir + "/ready"
    if !FileManager.default.fileExists(atPath: ready) {
        say("writing a ledger of \(claims) claims and a log of \(count) refund requests in \(dir) …")
        let t0 = SystemClock.monotonicSeconds()
        do {
            try writeConsumptionNight(dir, requests: count, claims: claims)
            try Data().write(to: URL(fileURLWithPath: ready))
        } catch {
            return say("cannot write \(dir): \(error)")
        }
        say("  written in \(format2(SystemClock.monotonicSeconds() - t0)) s")
    }
    let ledger = dir + "/ledger.sqlite"
    say(
        "consumption: \(count) refund requests (\(fileSize(dir + "/requests.jsonl") / 1_000_000) MB) against a ledger of "
            + "\(claims) claims (\(fileSize(ledger) / 1_000_000) MB), every signature verified")
    for round in 1...2 {
        let run = timedScreen(
            tool,
            [
                "consumption", "--rules", dir + "/Rules", "--store-events", dir + "/requests.jsonl", "--ledger",
                "sqlite:" + ledger, "--now", consumptionBenchNow.iso8601, "--out", dir + "/out", "--quiet",
            ])
        let answered =
            (try? String(contentsOfFile: dir + "/out/consumption.jsonl", encoding: .utf8))?
            .split(separator: "\n").count ?? 0
        say(
            "  run \(round): " + run.line(orders: nil, events: nil) + ", \(Int(Double(count) / run.wall)) requests/s, "
                + "\(answered) lines")
    }
}

/// The requests are signed an hour before this: all within their 12 hours.
private let consumptionBenchNow = Timestamp(clampingMillis: 1_710_028_800_000, hasMilliseconds: false)  // 2024-03-10

private func writeConsumptionNight(_ dir: String, requests count: Int, claims: Int) throws {
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir + "/Rules", withIntermediateDirectories: true)
    let pki = try TestPKI()
    let bundle = "com.example.game"
    try pki.writeTrustDirectory(into: URL(fileURLWithPath: dir + "/Rules"), googlePackageNames: [])
    try Data("platform,app_id\nios,\(bundle)\n".utf8).write(to: URL(fileURLWithPath: dir + "/Rules/apps.csv"))
    try Data(
        "item_id,platform,product_id,type,price,currency,sample_content\ngems,ios,com.example.gems,consumable,0.99,USD,no\n"
            .utf8
    ).write(to: URL(fileURLWithPath: dir + "/Rules/catalog.csv"))

    let users = max(claims / 3, 1)
    let start: Int64 = 1_709_251_200_000
    func key(_ i: Int) -> String { String(2_000_000_000_000_000 + i) }
    func user(_ i: Int) -> String { "user-\(i % users)" }
    let newClaims = (0..<claims).map { i in
        NewClaim(
            key: key(i),
            claim: Claim(
                orderID: "ORD-\(10_000_000 + i)", userID: user(i),
                createdAt: Timestamp(clampingMillis: start + Int64(i) * 500, hasMilliseconds: false)),
            details: ClaimDetails(productID: "com.example.gems", amount: "0.99", currency: "USD", platform: "ios"))
    }
    // Seven users in ten said yes, two no; one never said.
    let consents = (0..<users).compactMap { u -> RememberedConsent? in
        guard u % 10 != 9 else { return nil }
        return RememberedConsent(
            userID: "user-\(u)", consented: u % 10 < 7,
            saidAt: Timestamp(clampingMillis: start + Int64(u) * 1_000, hasMilliseconds: false), orderID: "ORD-\(u)")
    }
    let at = Timestamp(clampingMillis: start + Int64(claims) * 500, hasMilliseconds: false)
    try SQLiteLedger(path: dir + "/ledger.sqlite").record(
        RunRecord(
            startedAt: at, finishedAt: at, orders: claims, flagged: 0, newClaims: newClaims, reported: [],
            consents: consents))

    var random = SeededRandom(seed: 13)
    var log = ""
    let signed = Timestamp(clampingMillis: consumptionBenchNow.millis - 3_600_000, hasMilliseconds: false)
    for n in 0..<count {
        let kind = n % 10
        let txn = kind < 8 ? key(random.below(claims)) : String(3_000_000_000_000_000 + n)
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "com.example.gems", type: "Consumable",
            purchaseDate: Timestamp(clampingMillis: start, hasMilliseconds: false), signedDate: signed)
        if kind == 8 { tx.appAccountToken = user(random.below(users)).uppercased() }
        var request = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: random.uuid(), bundleID: bundle,
            signedDate: signed, transaction: tx)
        request.consumptionRequestReason = "UNSATISFIED_WITH_PURCHASE"
        log += AppStoreEventBuilder.webhookBody(
            signedPayload: try JWSBuilder.notification(request, with: pki.jwsSigner))
        log += "\n"
    }
    try Data(log.utf8).write(to: URL(fileURLWithPath: dir + "/requests.jsonl"))
}

/// `consumption-screen N [ORDERS]`: the screen world of ORDERS orders (default 100000) screened
/// without store events, then with a log of N refund requests signed by the world's keys, then
/// the requests alone answered by `consumption` (no ledger, no dumps): what the requests add to
/// a `screen` beside what answering them costs on its own. One request in ten names a user of
/// the world by its account token (the night's orders are searched for it).
func runConsumptionScreenBenchmark(requests count: Int, orders: Int, say: (String) -> Void) {
    var lines: [String] = []
    defer { lines.forEach(say) }
    guard let tool = iapscreenTool(&lines), let world = benchWorld(orders: orders, tool: tool, lines: &lines) else {
        return
    }
    let log = world.directory + "/requests-\(count).jsonl"
    if !FileManager.default.fileExists(atPath: log) {
        do {
            let pki = try TestPKI.load(from: URL(fileURLWithPath: world.directory + "/pki"))
            try writeRequestLog(log, count: count, signer: pki.jwsSigner, users: 5_000)
        } catch {
            lines.append("cannot write \(log): \(error)")
            return
        }
    }
    lines.append("consumption-screen: \(orders) orders and \(count) refund requests, every signature verified")
    let plain = timedScreen(tool, world.screenArguments(out: world.directory + "/report-plain"))
    lines.append("  screen without the requests: " + plain.line(orders: orders, events: nil))
    let with = timedScreen(
        tool,
        world.screenArguments(out: world.directory + "/report-requests") + [
            "--store-events", log, "--now", consumptionBenchNow.iso8601,
        ])
    lines.append("  screen with the requests:    " + with.line(orders: orders, events: count))
    let alone = timedScreen(
        tool,
        [
            "consumption", "--rules", world.directory + "/Rules", "--store-events", log, "--ledger", "none", "--now",
            consumptionBenchNow.iso8601, "--out", world.directory + "/consumption", "--quiet",
        ])
    lines.append("  the requests alone:          " + alone.line(orders: nil, events: count))
    lines.append(
        "  the requests add \(format2(with.wall - plain.wall)) s wall, \(format2(with.cpu - plain.cpu)) CPU-s to the "
            + "screen; answered alone they take \(format2(alone.wall)) s wall, \(format2(alone.cpu)) CPU-s")
}

private func writeRequestLog(_ path: String, count: Int, signer: SigningIdentity, users: Int) throws {
    var random = SeededRandom(seed: 17)
    let signed = Timestamp(clampingMillis: consumptionBenchNow.millis - 3_600_000, hasMilliseconds: false)
    var log = ""
    for n in 0..<count {
        var tx = JWSBuilder.Transaction(
            transactionID: String(3_000_000_000_000_000 + n), bundleID: "com.example.game",
            productID: "com.example.game.gems100", type: "Consumable",
            purchaseDate: Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false), signedDate: signed)
        if n % 10 == 0 { tx.appAccountToken = "USER-\(10_000 + random.below(users))" }
        var request = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: random.uuid(), bundleID: "com.example.game",
            signedDate: signed, transaction: tx)
        request.consumptionRequestReason = "UNINTENDED_PURCHASE"
        log += AppStoreEventBuilder.webhookBody(signedPayload: try JWSBuilder.notification(request, with: signer))
        log += "\n"
    }
    try Data(log.utf8).write(to: URL(fileURLWithPath: path))
}
