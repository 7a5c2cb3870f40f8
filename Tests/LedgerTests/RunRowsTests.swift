import IAPBasics
import Ledger
import Screening
import Testing

/// Rows a night hands its ledger a batch at a time (a big night's, read back from disk).
@Suite("A night's rows recorded a batch at a time, on both backends")
struct RunRowsTests {
    /// `batches` of claims keyed `k0`, `k1`, …, in key order, read as a night in parts reads them.
    static func claims(_ batches: [Int], failingAfter failAt: Int? = nil) -> RunRows<NewClaim> {
        RunRows { (batch) throws(LedgerError) in
            var n = 0
            for (b, size) in batches.enumerated() {
                if b == failAt { throw LedgerError("a pass file ends early", code: .unreadableRows) }
                try batch(
                    (n..<n + size).map { k in
                        NewClaim(key: String(format: "k%04d", k), claim: claim("o\(k)", "u\(k % 7)", Int64(k)))
                    })
                n += size
            }
        }
    }

    static func record(_ claims: RunRows<NewClaim>, consents: [RememberedConsent] = []) -> RunRecord {
        RunRecord(
            startedAt: at(0), finishedAt: at(60), orders: 0, flagged: 0, newClaims: claims,
            reported: RunRows([ReportedFinding(orderID: "o1", rule: "revoked")]),
            consents: .inUserOrder(consents))
    }

    @Test("every claim of every batch is recorded, each its own taker", arguments: LedgerBackend.available)
    func batches(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(Self.record(Self.claims([3, 4096, 1, 0, 2])))
        #expect(try ledger.counts().claims == 4102)
        let found = try ledger.claims(of: ["k0000", "k0003", "k4099", "k4101", "k4102"])
        #expect(found["k0000"]?.orderID == "o0" && found["k0003"]?.orderID == "o3")
        #expect(found["k4099"]?.orderID == "o4099" && found["k4101"]?.userID == "u\(4101 % 7)")
        #expect(found["k4102"] == nil)
    }

    @Test(
        "rows that cannot be read back mid-way fail the record, and the ledger is as it was",
        arguments: LedgerBackend.available)
    func unreadable(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let ledger = try place.open()
        try ledger.record(Self.record(Self.claims([2])))
        let before = try ledger.counts()
        let said = RememberedConsent(userID: "u1", consented: true, saidAt: at(5), orderID: "o1")
        do {
            try ledger.record(Self.record(Self.claims([5, 5, 5], failingAfter: 2), consents: [said]))
            Issue.record("recorded a night whose rows could not be read")
        } catch {
            #expect(error.code == .unreadableRows, "\(error)")
        }
        let after = try place.open().counts()
        #expect(after.claims == before.claims && after.runs == before.runs && after.reported == before.reported)
        #expect(after.consents == 0)
        // The ledger is still usable for the next night.
        try ledger.record(Self.record(Self.claims([3])))
        #expect(try ledger.counts().runs == before.runs + 1)
    }
}
