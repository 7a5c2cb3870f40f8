import Foundation
import IAPBasics
import PostgresClient
import PostgresTestSupport
import Screening
import Testing

@testable import Ledger

/// Every pair of backends a copy can go between, the same one twice included.
private let pairs: [(LedgerBackend, LedgerBackend)] = LedgerBackend.available.flatMap { a in
    LedgerBackend.available.map { b in (a, b) }
}

private let odd = "a\tb\nc\\N\r\"d'e, {f} ü 漢 🙂"

/// Two nights, a verdict and a desk's work that leave a row in every table: claims with and
/// without details (one with milliseconds, one of odd text), findings, runs, events that name
/// the run that read them first, refunds (one reversed), reviews, flagged orders (one flagged
/// on both nights), a desk user, a live claim, a note, a desk verdict no run applied and the
/// audit trail; a session, which a copy leaves behind.
private func fill(_ place: LedgerPlace) throws {
    let ledger = try place.open()
    try ledger.record(
        night(
            claims: [("1001", claim("o1", "u1", 10)), ("g:GPA.1", claim("o2", "u2", 20)), (odd, claim(odd, odd))],
            reported: [("o1", "revoked"), (odd, odd)],
            details: [
                "g:GPA.1": ClaimDetails(
                    productID: "gems_100", amount: "1.99", currency: "EUR",
                    purchaseToken: "tok-1", platform: "android")
            ],
            events: [("e1", "REFUND"), (odd, odd)], flagged: [flaggedOrder("o1", rules: ["revoked"], keys: ["1001"])]))
    try ledger.record(
        night(
            claims: [
                ("1002", Claim(orderID: "o3", userID: "u1", createdAt: Timestamp(clampingMillis: 1_709_251_200_123)))
            ],
            reported: [("o3", "replayed-transaction")],
            refunds: [
                RememberedRefund(
                    key: "1001", refundedAt: at(30), event: "REFUND", reason: "other",
                    identity: "e1"),
                RememberedRefund(
                    key: "g:GPA.1", refundedAt: at(40), event: "voided", source: "user",
                    identity: "e2"),
            ],
            reversals: [("1001", at(50))], events: [("e2", "voided"), ("e1", "REFUND")],
            consents: [
                RememberedConsent(userID: "u1", consented: true, saidAt: at(10), orderID: "o1"),
                RememberedConsent(userID: odd, consented: false, saidAt: at(20), orderID: odd),
            ],
            flagged: [
                flaggedOrder("o1", rules: ["revoked", "r-ü漢"], keys: ["1001"]),
                flaggedOrder(odd, user: odd, severity: 4, rules: ["replayed-transaction"], keys: ["1002", odd]),
            ]))
    try ledger.recordReview(orderID: "o1", Review(verdict: "fraud", note: odd, by: "ana", at: "2024-03-02T09:00:00Z"))
    let desk = try place.openDesk()
    let now = at(3600).millis
    _ = try desk.addUser(
        DeskUser(name: "ana", role: .lead, passwordHash: "$argon2id$" + odd, passwordSetAt: now, createdAt: now),
        by: "root")
    try desk.startSession(idHash: "h", user: "ana", csrf: "c", at: now)
    _ = try desk.claim("o1", by: "ana", until: at(86_400 * 365 * 100).millis, now: now)
    _ = try desk.addNote(odd, by: "ana", text: odd, at: now)
    _ = try desk.giveVerdict(odd, verdict: "legit", note: odd, by: "ana", version: nil, bulk: false, at: now)
}

/// Every row a ledger exports, one line each, in export order.
private func rows(_ ledger: any LedgerStore, batch: Int = 50_000) throws -> [String] {
    var out: [String] = []
    try ledger.exportRows(batch: batch) { rows in
        switch rows {
        case .runs(let r): out += r.map { "run \($0)" }
        case .claims(let c): out += c.map { "claim \($0.key) \($0.claim) \($0.details)" }
        case .reported(let f): out += f.map { "reported \($0)" }
        case .reviews(let r): out += r.map { "review \($0.orderID) \($0.review)" }
        case .events(let e): out += e.map { "event \($0)" }
        case .refunds(let r): out += r.map { "refund \($0)" }
        case .consents(let c): out += c.map { "consent \($0)" }
        case .flaggedOrders(let f): out += f.map { "flagged \($0)" }
        case .flaggedHistory(let f): out += f.map { "flagged run \($0)" }
        case .flaggedBlocks(let b): out += b.map { "flagged block \($0)" }
        case .flaggedKeys(let k): out += k.map { "flagged key \($0)" }
        case .deskUsers(let u): out += u.map { "desk user \($0)" }
        case .deskOrders(let o): out += o.map { "desk order \($0)" }
        case .deskNotes(let n): out += n.map { "note \($0)" }
        case .deskVerdicts(let v): out += v.map { "desk verdict \($0)" }
        case .deskAudit(let a): out += a.map { "audit \($0)" }
        }
    }
    return out
}

@Suite("Copying a ledger, and counting what it holds, on both backends")
struct LedgerCopyTests {
    @Test("counts say what each table holds", arguments: LedgerBackend.available)
    func counts(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        #expect(try place.open().counts().isEmpty)
        try fill(place)
        var expected = LedgerCounts()
        (expected.claims, expected.reported, expected.reviews, expected.runs) = (4, 3, 1, 2)
        (expected.storeEvents, expected.refunds, expected.reversed, expected.consents) = (3, 2, 1, 2)
        (expected.flaggedOrders, expected.flaggedHistory, expected.flaggedBlocks, expected.flaggedKeys) = (2, 1, 2, 3)
        (expected.users, expected.deskOrders, expected.openClaims, expected.notes) = (1, 2, 1, 1)
        // review, user-add, login, claim, note, verdict
        (expected.pendingVerdicts, expected.auditEntries) = (1, 6)
        let counts = try place.open(readOnly: true).counts()
        #expect(counts == expected)
        #expect(
            counts.description
                == "4 claims, 3 findings reported, 1 review, 2 runs, 3 store events, 2 refunds, 2 users' consents, "
                + "2 flagged orders, 1 earlier flagging of an order, 2 blocks of findings, 3 transactions of flagged orders, "
                + "1 desk user, "
                + "2 orders on the desk, 1 open claim, 1 note, 1 desk verdict not yet applied, 6 audit entries")
    }

    @Test(
        "a copy carries every row, either way and onto the same backend; runs keep their ids, the next run follows them",
        arguments: pairs)
    func everyRow(_ from: LedgerBackend, _ to: LedgerBackend) throws {
        let source = try LedgerPlace(from)
        let target = try LedgerPlace(to)
        try fill(source)
        let copied = try target.open().copy(from: source.open(readOnly: true), batch: 2)
        #expect(copied == (try source.open().counts()))
        let copy = try target.open()
        #expect(try rows(copy) == rows(source.open(readOnly: true)))
        #expect(try copy.counts() == copied)
        // What the screen asks of a ledger comes back the same from the copy.
        #expect(try copy.claimsWithDetails(of: ["g:GPA.1"])["g:GPA.1"]?.details.purchaseToken == "tok-1")
        #expect(try copy.claimKeys(forTokens: ["tok-1"]) == ["tok-1": "g:GPA.1"])
        #expect(try copy.refunds(of: ["1001"])["1001"]?.reversedAt == at(50))
        #expect(try copy.refundsPerUser() == ["u1": 1, "u2": 1])
        #expect(try copy.reviews(of: ["o1"])["o1"]?.note == odd)
        #expect(try copy.consents(of: ["u1", odd]).mapValues(\.consented) == ["u1": true, odd: false])
        let before = try copy.recentRuns(1)
        try copy.record(night(claims: [("1003", claim("o4"))]))
        #expect(try copy.recentRuns(1).first?.id == (before.first?.id ?? 0) + 1)
        #expect(try copy.events(["e2"])["e2"]?.firstRun == before.first?.id)
        // The desk of the copy: its queue, claims, notes and audit trail as they were, and what it
        // writes next follows them; nobody is logged in.
        let desk = try target.openDesk()
        let queue = try desk.queue(QueueFilter(status: .all), now: at(3600).millis)
        #expect(queue.orders.map(\.flagged.orderID) == [odd, "o1"])
        #expect(queue.orders.last?.claimedBy == "ana" && queue.orders.last?.flagged.rules == ["r-ü漢", "revoked"])
        #expect(try desk.dossier(of: "o1", now: at(3600).millis)?.history.map(\.run) == [1, 2])
        #expect(
            try desk.dossier(of: odd, now: at(3600).millis)?.notes == [
                DeskNote(by: "ana", at: "2024-03-01T01:00:00Z", text: odd)
            ])
        #expect(try desk.session(idHash: "h") == nil)
        #expect(try desk.user(named: "ana")?.passwordHash == "$argon2id$" + odd)
        #expect(try copy.applyDeskVerdicts() == 1 && copy.review(of: odd)?.note == odd)
        _ = try desk.addNote("o1", by: "ana", text: "after the copy", at: at(7200).millis)
        let trail = try desk.audit(since: nil, afterID: 0, limit: 100)
        #expect(trail.map(\.id) == Array(1...7))
        #expect(trail.map(\.action) == [.review, .userAdd, .login, .claim, .note, .verdict, .note])
    }

    @Test("a target that holds anything is refused, saying what it holds, and left as it was", arguments: pairs)
    func nonEmptyTarget(_ from: LedgerBackend, _ to: LedgerBackend) throws {
        let source = try LedgerPlace(from)
        let target = try LedgerPlace(to)
        try fill(source)
        try target.open().recordReview(
            orderID: "x", Review(verdict: "legit", note: nil, by: nil, at: "2024-03-01T00:00:00Z"))
        #expect {
            _ = try target.open().copy(from: source.open(readOnly: true))
        } throws: { error in
            guard let error = error as? LedgerError else { return false }
            return error.code == .notEmpty
                && error.message.contains(
                    "is not empty: it holds 1 review, 1 order on the desk, 1 audit entry; nothing copied")
        }
        #expect(try target.open().counts().reviews == 1 && target.open().counts().claims == 0)
    }

    @Test("a copy that fails half way leaves the target as it was", arguments: pairs)
    func failedCopy(_ from: LedgerBackend, _ to: LedgerBackend) throws {
        let source = try LedgerPlace(from)
        let target = try LedgerPlace(to)
        try fill(source)
        _ = try target.open()
        try target.failRefunds(ofKey: "g:GPA.1")
        #expect(throws: LedgerError.self) { _ = try target.open().copy(from: source.open(readOnly: true), batch: 1) }
        #expect(try target.open().counts().isEmpty)
    }

    @Test("many claims go in batches and all arrive", arguments: pairs)
    func manyClaims(_ from: LedgerBackend, _ to: LedgerBackend) throws {
        let source = try LedgerPlace(from)
        let target = try LedgerPlace(to)
        let claims = (0..<30_001).map { i in ("k\(i)", claim("o\(i)", "u\(i % 97)", Int64(i))) }
        try source.open().record(night(claims: claims))
        let copied = try target.open().copy(from: source.open(readOnly: true), batch: 10_000)
        #expect(copied.claims == 30_001 && copied.runs == 1)
        #expect(
            try target.open().claims(of: ["k0", "k30000", "k30001"]).mapValues(\.orderID) == [
                "k0": "o0", "k30000": "o30000",
            ])
    }

    @Test(
        "a ledger written before schema versions copies as it is: its claims without details, its reviews and run",
        arguments: LedgerBackend.available)
    func schema0Source(_ to: LedgerBackend) throws {
        let scratch = try Scratch()
        let old = try SQLiteLedger(path: scratch.schema0Ledger(), readOnly: true)
        let target = try LedgerPlace(to)
        let copied = try target.open().copy(from: old)
        #expect(copied.claims == 191 && copied.reported == 25 && copied.reviews == 2 && copied.runs == 1)
        #expect(copied.storeEvents == 0 && copied.refunds == 0)
        #expect(try target.open().review(of: "ORD-1000009")?.note == "refund reversed by support")
    }

    @Test("who holds the ledger for a run is seen without taking its lock", arguments: LedgerBackend.available)
    func runHolder(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let reader = try place.open()
        #expect(try reader.runHolder() == nil)
        var held: AnyObject?
        if let postgres = try place.open() as? PostgresLedger {
            try postgres.lockForRun()
            held = postgres
        } else {
            held = try place.sqliteLock()
        }
        let holder = try reader.runHolder() ?? ""
        #expect(holder.contains(backend == .sqlite ? "process \(getpid())" : "iapscreen \(getpid())@"), "\(holder)")
        held = nil
        // PostgreSQL frees it once the server notices the session has gone, in its own time.
        #expect(try TestServer.eventually { try reader.runHolder() == nil } && held == nil)
    }
}
