import Foundation
import IAPBasics
import Ledger
import Screening
import Testing

@Suite("What the ledger remembers for store events: claim details and tokens")
final class StoreEventMemoryTests {
    let scratch: Scratch
    let path: String

    init() throws {
        scratch = try Scratch()
        path = scratch.path("l.sqlite")
    }

    let coins = ClaimDetails(productID: "com.example.coins", amount: "4.99", currency: "USD", purchaseToken: nil,
                             platform: "ios")
    let gems = ClaimDetails(productID: "gems_100", amount: "1,99", currency: "EUR", purchaseToken: "tok-gems",
                            platform: "android")

    @Test("a claim's product, money, token and platform come back on a later night; the first taker keeps its own")
    func claimDetails() throws {
        try SQLiteLedger(path: path).record(night(claims: [("100", claim("o1", "u1", 10)), ("g:GPA.1", claim("o2", "u2", 20)),
                                                          ("200", claim("o3"))],
                                                 details: ["100": coins, "g:GPA.1": gems]))
        let ledger = try SQLiteLedger(path: path)
        // A replay of 100 tonight does not change what the first taker bought.
        try ledger.record(night(claims: [("100", claim("o9", "u9"))],
                                details: ["100": ClaimDetails(productID: "other", amount: "0", currency: "JPY")]))
        let found = try ledger.claimsWithDetails(of: ["100", "g:GPA.1", "200", "300"])
        #expect(found["100"]?.claim == claim("o1", "u1", 10))
        #expect(found["100"]?.details == coins)
        #expect(found["g:GPA.1"]?.claim == claim("o2", "u2", 20))
        #expect(found["g:GPA.1"]?.details == gems)
        #expect(found["200"]?.details == .unknown)
        #expect(found["300"] == nil)
        #expect(try ledger.claims(of: ["100", "g:GPA.1", "200", "300"]).mapValues(\.orderID)
                    == ["100": "o1", "g:GPA.1": "o2", "200": "o3"])
    }

    @Test("a Google refund that names only a purchase token finds its claim; renewals sharing a token give the first")
    func tokens() throws {
        let ledger = try SQLiteLedger(path: path)
        func bought(_ token: String) -> ClaimDetails { ClaimDetails(productID: "vip", purchaseToken: token, platform: "android") }
        try ledger.record(night(claims: [("g:GPA.7..1", claim("o-renewal", "u", 86_400)), ("g:GPA.7", claim("o-first", "u", 0)),
                                         ("gt:test-token", claim("o-test")), ("g:GPA.8", claim("o-other"))],
                                details: ["g:GPA.7..1": bought("sub-token"), "g:GPA.7": bought("sub-token"),
                                          "gt:test-token": bought("test-token"), "g:GPA.8": bought("one-token")]))
        #expect(try ledger.claimKeys(forTokens: ["sub-token", "test-token", "one-token", "unknown-token"])
                    == ["sub-token": "g:GPA.7", "test-token": "gt:test-token", "one-token": "g:GPA.8"])
    }

    @Test("bulk lookups answer for many keys at once, the unknown left out")
    func bulk() throws {
        let ledger = try SQLiteLedger(path: path)
        let n = 20_000
        let keys = (0..<n).map { "g:GPA.\($0)" }
        try ledger.record(night(claims: keys.map { ($0, claim("o-" + $0)) },
                                details: Dictionary(uniqueKeysWithValues: keys.map { ($0, ClaimDetails(purchaseToken: "t-" + $0)) })))
        let asked = keys + ["g:GPA.none"]
        #expect(try ledger.claims(of: asked).count == n)
        #expect(try ledger.claimsWithDetails(of: asked).count == n)
        #expect(try ledger.claimKeys(forTokens: asked.map { "t-" + $0 }).count == n)
        #expect(try ledger.claims(of: []).isEmpty)
    }
}
