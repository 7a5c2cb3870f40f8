import IAPBasics
import Screening
import Testing

@testable import Night

@Suite("The night's refunds, packed")
struct NightRefundsTests {
    static func refund(_ key: String, reason: String? = nil, percentage: Int64? = nil, row: Bool = false) -> StoreRefund
    {
        let at = Timestamp(clampingMillis: 1_709_337_600_123)
        var r = StoreRefund(
            kind: .refund, key: key, event: "voided", at: at,
            location: row ? SourceLocation(file: "events.csv", row: 7) : SourceLocation(file: "events.jsonl", line: 3))
        r.reason = reason
        r.source = "user"
        r.revocationType = "REFUND_PRORATED"
        r.revocationPercentage = percentage
        return r
    }

    @Test("every field comes back as it went in: keys, token-only refunds, times, places, words, percentages")
    func roundTrip() {
        var night = NightRefunds()
        let id = EventIdentity("n-1")
        let given = [
            Self.refund("g:GPA.1", reason: "friendly-fraud", percentage: 45_000),
            Self.refund("1001", percentage: Int64(Int32.max) + 5, row: true),
            StoreRefund(
                kind: .reversal, key: "1002", event: "REFUND_REVERSED",
                at: Timestamp(clampingMillis: 1_709_337_600_000, hasMilliseconds: false), location: nil),
        ]
        for r in given { night.append(r, token: nil, identity: id) }
        night.append(
            StoreRefund(
                kind: .refund, key: "", token: "tok-f", event: "rtdn-revoked",
                at: Timestamp(clampingMillis: 5), location: SourceLocation(file: "b.jsonl", line: 9)),
            token: "tok-f", identity: id)
        #expect(night.count == 4)
        for (i, r) in given.enumerated() {
            #expect(night[i].refund == r)
            #expect(night[i].token == nil && night[i].identity == id)
        }
        #expect(night[3].refund.key.isEmpty && night[3].refund.transaction == "tok-f" && night[3].token == "tok-f")
        #expect(night.unresolvedTokens == ["tok-f"])
    }

    @Test("a night of more distinct names than the table holds keeps them all")
    func manyNames() {
        var night = NightRefunds()
        let n = 70_000
        for i in 0..<n {
            night.append(Self.refund("k\(i)", reason: "reason \(i)"), token: nil, identity: EventIdentity("e\(i)"))
        }
        #expect(night[0].refund.reason == "reason 0")
        #expect(night[n - 1].refund.reason == "reason \(n - 1)")
        #expect(night[n - 1].refund.source == "user" && night[n - 1].refund.revocationType == "REFUND_PRORATED")
    }
}
