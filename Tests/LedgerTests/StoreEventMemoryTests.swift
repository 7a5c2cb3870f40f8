import Foundation
import IAPBasics
import Ledger
import Screening
import Testing

@Suite("What the ledger remembers for store events, on both backends: claim details, tokens, refunds, events")
struct StoreEventMemoryTests {
    let coins = ClaimDetails(
        productID: "com.example.coins", amount: "4.99", currency: "USD", purchaseToken: nil,
        platform: "ios")
    let gems = ClaimDetails(
        productID: "gems_100", amount: "1,99", currency: "EUR", purchaseToken: "tok-gems",
        platform: "android")

    @Test(
        "a claim's product, money, token and platform come back on a later night; the first taker keeps its own",
        arguments: LedgerBackend.available)
    func claimDetails(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        try place.open().record(
            night(
                claims: [
                    ("100", claim("o1", "u1", 10)), ("g:GPA.1", claim("o2", "u2", 20)),
                    ("200", claim("o3")),
                ],
                details: ["100": coins, "g:GPA.1": gems]))
        let ledger = try place.open()
        // A replay of 100 tonight does not change what the first taker bought.
        try ledger.record(
            night(
                claims: [("100", claim("o9", "u9"))],
                details: ["100": ClaimDetails(productID: "other", amount: "0", currency: "JPY")]))
        let found = try ledger.claimsWithDetails(of: ["100", "g:GPA.1", "200", "300"])
        #expect(found["100"]?.claim == claim("o1", "u1", 10))
        #expect(found["100"]?.details == coins)
        #expect(found["g:GPA.1"]?.claim == claim("o2", "u2", 20))
        #expect(found["g:GPA.1"]?.details == gems)
        #expect(found["200"]?.details == .unknown)
        #expect(found["300"] == nil)
        #expect(
            try ledger.claims(of: ["100", "g:GPA.1", "200", "300"]).mapValues(\.orderID)
                == ["100": "o1", "g:GPA.1": "o2", "200": "o3"])
    }

    @Test(
        "a Google refund that names only a purchase token finds its claim; renewals sharing a token give the first",
        arguments: LedgerBackend.available)
    func tokens(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        func bought(_ token: String) -> ClaimDetails {
            ClaimDetails(productID: "vip", purchaseToken: token, platform: "android")
        }
        try ledger.record(
            night(
                claims: [
                    ("g:GPA.7..1", claim("o-renewal", "u", 86_400)), ("g:GPA.7", claim("o-first", "u", 0)),
                    ("gt:test-token", claim("o-test")), ("g:GPA.8", claim("o-other")),
                ],
                details: [
                    "g:GPA.7..1": bought("sub-token"), "g:GPA.7": bought("sub-token"),
                    "gt:test-token": bought("test-token"), "g:GPA.8": bought("one-token"),
                ]))
        #expect(
            try ledger.claimKeys(forTokens: ["sub-token", "test-token", "one-token", "unknown-token"])
                == ["sub-token": "g:GPA.7", "test-token": "gt:test-token", "one-token": "g:GPA.8"])
    }

    func refund(
        _ key: String, _ seconds: Int64, _ event: String, reason: String? = nil, source: String? = nil,
        identity: String
    ) -> RememberedRefund {
        RememberedRefund(
            key: key, refundedAt: at(seconds), event: event, reason: reason, source: source, identity: identity)
    }

    @Test(
        "the earliest refund of a transaction is kept, whichever night it is read on",
        arguments: LedgerBackend.available)
    func earliestRefundWins(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let later = refund("g:GPA.1", 5000, "voided", reason: "remorse", source: "user", identity: "void-5000")
        let earlier = refund("g:GPA.1", 1000, "rtdn-voided", identity: "rtdn-1")
        let ledger = try place.open()
        try ledger.record(night(refunds: [later]))
        #expect(try ledger.refunds(of: ["g:GPA.1"]) == ["g:GPA.1": later])
        try ledger.record(night(refunds: [earlier]))
        #expect(try ledger.refunds(of: ["g:GPA.1"]) == ["g:GPA.1": earlier])
        // Read again, or a later one: the earliest stays.
        try ledger.record(night(refunds: [later, refund("g:GPA.1", 9000, "voided", identity: "void-9000"), earlier]))
        // Two on one night: the earlier, in whichever order they came.
        try ledger.record(
            night(refunds: [
                refund("42", 700, "REVOKE", identity: "n-2"),
                refund(
                    "42", 600, "REFUND", reason: "app-issue",
                    identity: "n-1"),
            ]))
        let reopened = try place.open()
        let remembered = try reopened.refunds(of: ["g:GPA.1", "42", "43"])
        #expect(remembered["g:GPA.1"] == earlier)
        #expect(remembered["42"] == refund("42", 600, "REFUND", reason: "app-issue", identity: "n-1"))
        #expect(remembered["43"] == nil)
        // All at once, as a night that takes more keys than the ledger has refunds reads them.
        #expect(try reopened.refundCount() == 2)
        #expect(try reopened.allRefunds() == remembered)
    }

    @Test(
        "Apple's reversal of a refund is remembered with it, on the same night or a later one",
        arguments: LedgerBackend.available)
    func reversals(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(
            night(
                refunds: [refund("1", 100, "REFUND", identity: "n-1"), refund("2", 100, "REFUND", identity: "n-2")],
                reversals: [("1", at(200))]))
        #expect(try ledger.refunds(of: ["1"])["1"]?.reversedAt == at(200))
        #expect(try ledger.refunds(of: ["2"])["2"]?.reversedAt == nil)
        // A reversal of a refund the ledger never saw has nothing to mark.
        try ledger.record(night(reversals: [("2", at(300)), ("1", at(400)), ("3", at(300))]))
        let reopened = try place.open()
        let remembered = try reopened.refunds(of: ["1", "2", "3"])
        #expect(remembered["1"]?.reversedAt == at(200))
        #expect(remembered["2"]?.reversedAt == at(300))
        #expect(remembered["2"]?.refundedAt == at(100))
        #expect(remembered["3"] == nil)
    }

    @Test(
        "every store event is remembered once, with the run that first read it",
        arguments: LedgerBackend.available)
    func events(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(night(events: [("uuid-a", "REFUND"), ("uuid-b", "TEST"), ("uuid-a", "REFUND")]))
        try ledger.record(night(events: [("uuid-b", "TEST"), ("msg-c", "rtdn-voided")]))
        let runs = try ledger.recentRuns(5).map(\.id)
        #expect(runs.count == 2)
        let reopened = try place.open()
        #expect(try reopened.knownEvents(["uuid-a", "msg-c", "uuid-z"]) == ["uuid-a", "msg-c"])
        #expect(
            try reopened.events(["uuid-a", "uuid-b", "msg-c", "uuid-z"]) == [
                "uuid-a": RememberedEvent(identity: "uuid-a", type: "REFUND", firstRun: runs[1]),
                "uuid-b": RememberedEvent(identity: "uuid-b", type: "TEST", firstRun: runs[1]),
                "msg-c": RememberedEvent(identity: "msg-c", type: "rtdn-voided", firstRun: runs[0]),
            ])
    }

    @Test(
        "a night whose ledger update fails leaves none of it: claims, refunds and events come together or not at all",
        arguments: LedgerBackend.available)
    func oneTransaction(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(night(claims: [("1", claim("o1"))], refunds: [refund("1", 10, "REFUND", identity: "n-1")]))
        // A failure after the claims and events are written, while the refunds are.
        try place.failRefunds(ofKey: "2")
        #expect(throws: LedgerError.self) {
            try ledger.record(
                night(
                    claims: [("2", claim("o2"))], refunds: [refund("2", 10, "REFUND", identity: "n-2")],
                    events: [("n-2", "REFUND")]))
        }
        #expect(try ledger.claims(of: ["2"]).isEmpty)
        #expect(try ledger.refunds(of: ["2"]).isEmpty)
        #expect(try ledger.knownEvents(["n-2"]).isEmpty)
        #expect(try ledger.recentRuns(5).count == 1)
    }

    @Test(
        "bulk lookups answer for many keys at once, the unknown left out",
        arguments: LedgerBackend.available)
    func bulk(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        let n = 50_000
        let keys = (0..<n).map { "g:GPA.\($0)" }
        try ledger.record(
            night(
                claims: keys.map { ($0, claim("o-" + $0)) },
                details: Dictionary(uniqueKeysWithValues: keys.map { ($0, ClaimDetails(purchaseToken: "t-" + $0)) }),
                refunds: keys.prefix(n / 2).map { refund($0, 1, "voided", identity: "v-" + $0) },
                events: keys.map { ("v-" + $0, "voided") }))
        let asked = keys + ["g:GPA.none"]
        #expect(try ledger.claims(of: asked).count == n)
        #expect(try ledger.claimsWithDetails(of: asked).count == n)
        #expect(try ledger.claimKeys(forTokens: asked.map { "t-" + $0 }).count == n)
        #expect(try ledger.refunds(of: asked).count == n / 2)
        #expect(try ledger.knownEvents(asked.map { "v-" + $0 }).count == n)
        #expect(try ledger.claims(of: []).isEmpty)
    }
}
