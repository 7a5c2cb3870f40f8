import IAPBasics
import Ledger
import Screening
import Testing

@Suite("The ledger's memory, on both backends: claims, reruns, reviews, runs")
struct LedgerBehaviourTests {
    @Test(
        "claims survive reopening, and the first taker of a transaction stays its owner",
        arguments: LedgerBackend.available)
    func firstTakerWins(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        do {
            let ledger = try place.open()
            try ledger.record(night(claims: [("apple:1", claim("o1", "u1", 30))]))
            try ledger.record(night(claims: [("apple:1", claim("o2")), ("apple:2", claim("o3"))]))
        }
        let found = try place.open().claims(of: ["apple:1", "apple:2", "apple:3"])
        #expect(found["apple:1"] == claim("o1", "u1", 30))
        #expect(found["apple:2"]?.orderID == "o3")
        #expect(found["apple:3"] == nil)
    }

    @Test("of one key given twice on one night, the first given is its taker", arguments: LedgerBackend.available)
    func firstGivenTonight(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(night(claims: [("7", claim("o-first")), ("7", claim("o-second"))]))
        #expect(try ledger.claims(of: ["7"])["7"]?.orderID == "o-first")
    }

    @Test(
        "a time kept with milliseconds comes back with them, a whole second without", arguments: LedgerBackend.available
    )
    func times(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let precise = Claim(orderID: "o1", userID: "u1", createdAt: Timestamp(clampingMillis: 1_709_251_200_123))
        try place.open().record(night(claims: [("1", precise), ("2", claim("o2", "u2", 5))]))
        let found = try place.open().claims(of: ["1", "2"])
        #expect(found["1"] == precise)
        #expect(found["1"]?.createdAt.iso8601 == "2024-03-01T00:00:00.123Z")
        #expect(found["2"]?.createdAt.iso8601 == "2024-03-01T00:00:05Z")
    }

    @Test(
        "a rerun of the same night changes no claim and no finding, and counts as a run",
        arguments: LedgerBackend.available)
    func rerun(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let tonight = night(
            claims: [("1", claim("o1")), ("g:GPA.2", claim("o2", "u2"))], reported: [("o2", "revoked")])
        try place.open().record(tonight)
        let ledger = try place.open()
        try ledger.record(tonight)
        #expect(try ledger.claims(of: ["1", "g:GPA.2"]) == ["1": claim("o1"), "g:GPA.2": claim("o2", "u2")])
        #expect(try ledger.wasReported(orderID: "o2", rule: "revoked"))
        let runs = try ledger.recentRuns(10)
        #expect(runs.count == 2)
        #expect(runs.first?.id ?? 0 > runs.last?.id ?? 0)
        #expect(
            runs.first
                == RecordedRun(
                    id: runs.first?.id ?? 0, startedAt: at(0).iso8601,
                    finishedAt: at(60).iso8601, orders: 2, flagged: 0))
        #expect(try ledger.recentRuns(1).count == 1)
    }

    @Test("reported findings and review verdicts are remembered", arguments: LedgerBackend.available)
    func reportedAndReviews(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        #expect(try !ledger.wasReported(orderID: "o1", rule: "revoked"))
        #expect(try !ledger.knows(orderID: "o1"))
        try ledger.record(night(claims: [("5", claim("o5"))], reported: [("o1", "revoked")]))
        #expect(try ledger.wasReported(orderID: "o1", rule: "revoked"))
        #expect(try !ledger.wasReported(orderID: "o1", rule: "item-id-mismatch"))
        #expect(try ledger.knows(orderID: "o1"))
        #expect(try ledger.knows(orderID: "o5"))
        #expect(try !ledger.knows(orderID: "o6"))
        #expect(try ledger.review(of: "o1") == nil)
        try ledger.recordReview(
            orderID: "o1", Review(verdict: "legit", note: "refund reversed", by: "ana", at: "2024-03-02T09:00:00Z"))
        #expect(try ledger.review(of: "o1")?.verdict == "legit")
        try ledger.recordReview(orderID: "o1", Review(verdict: "fraud", note: nil, by: nil, at: "2024-03-03T09:00:00Z"))
        #expect(
            try place.open().review(of: "o1")
                == Review(verdict: "fraud", note: nil, by: nil, at: "2024-03-03T09:00:00Z"))
    }

    @Test(
        "a chunk of reports asks its verdicts and reported findings at once: exactly the pairs reported, the orders reviewed",
        arguments: LedgerBackend.available)
    func standingsAtOnce(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        #expect(try ledger.reviews(of: []).isEmpty && ledger.reported([]).isEmpty)
        try ledger.record(night(reported: [("o1", "revoked"), ("o1", "replayed-transaction"), ("o2", "revoked")]))
        let verdict = Review(verdict: "fraud", note: "n", by: "ana", at: "2024-03-02T09:00:00Z")
        try ledger.recordReview(orderID: "o2", verdict)
        #expect(try ledger.reviews(of: ["o1", "o2", "o3", "o2"]) == ["o2": verdict])
        func f(_ order: String, _ rule: String) -> ReportedFinding { ReportedFinding(orderID: order, rule: rule) }
        let asked = [
            f("o1", "revoked"), f("o1", "item-id-mismatch"), f("o2", "replayed-transaction"), f("o3", "revoked"),
            f("o1", "revoked"),
        ]
        #expect(try ledger.reported(asked) == [f("o1", "revoked")])
        // More than one array's worth goes in several.
        let many = (0..<45_000).map { f("x\($0)", "revoked") } + [f("o2", "revoked")]
        #expect(try ledger.reported(many) == [f("o2", "revoked")])
    }

    @Test(
        "opened without creating, a ledger no run has written is refused as empty and left uncreated",
        arguments: LedgerBackend.available)
    func notCreated(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        #expect {
            try place.open(creating: false)
        } throws: { error in
            (error as? LedgerError)?.code == .empty && "\(error)".contains("no run has written it")
        }
        #expect(throws: LedgerError.self) { try place.open(readOnly: true) }
        try place.open().record(night(claims: [("1", claim("o1"))]))
        #expect(try place.open(creating: false).claims(of: ["1"]).count == 1)
    }

    @Test(
        "text with tabs, newlines, backslashes, quotes and non-ASCII is kept as it was",
        arguments: LedgerBackend.available)
    func oddText(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let odd = "a\tb\nc\\N\r\"d'e, {f} ü 漢 🙂"
        try place.open().record(
            night(
                claims: [(odd, claim(odd, odd))], reported: [(odd, odd)],
                details: [
                    odd: ClaimDetails(
                        productID: odd, amount: odd, currency: odd, purchaseToken: odd,
                        platform: odd)
                ],
                events: [(odd, odd)]))
        let ledger = try place.open()
        #expect(try ledger.claimsWithDetails(of: [odd, "other"])[odd]?.details.productID == odd)
        #expect(try ledger.claims(of: [odd])[odd]?.userID == odd)
        #expect(try ledger.claimKeys(forTokens: [odd]) == [odd: odd])
        #expect(try ledger.wasReported(orderID: odd, rule: odd))
        #expect(try ledger.events([odd])[odd]?.type == odd)
    }

    @Test("a fresh ledger is at the schema version this build writes", arguments: LedgerBackend.available)
    func schemaVersion(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        #expect(try place.open().storedSchemaVersion() == 5)
        #expect(SQLiteLedger.schemaVersion == PostgresLedger.schemaVersion)
    }
}
