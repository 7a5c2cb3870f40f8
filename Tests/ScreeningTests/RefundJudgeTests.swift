import IAPBasics
import Screening
import Testing

@Suite("Refunds judged against the orders that took them")
struct RefundJudgeTests {
    static func t(_ s: String) -> Timestamp { Timestamp.parse(s) ?? Timestamp(clampingMillis: 0) }

    static func refund(
        _ key: String, at: String, kind: StoreRefund.Kind = .refund, event: String = "REFUND",
        line: Int = 1
    ) -> StoreRefund {
        var r = StoreRefund(
            kind: kind, key: key, event: event, at: t(at),
            location: SourceLocation(file: "events.jsonl", line: line))
        r.reason = "app-issue"
        return r
    }

    static let takers: [String: RefundJudge.Taker] = [
        "100": .init(
            orderID: "o-tonight", userID: "u1", createdAt: t("2024-03-01T10:00:00Z"), slot: 4, stillCredited: true),
        "200": .init(
            orderID: "o-earlier", userID: "u2", createdAt: t("2024-02-01T10:00:00Z"), slot: nil, stillCredited: true),
        "300": .init(
            orderID: "o-marked", userID: "u3", createdAt: t("2024-03-01T10:00:00Z"), slot: 7, stillCredited: false),
        "400": .init(
            orderID: "o-late", userID: "u4", createdAt: t("2024-03-05T10:00:00Z"), slot: 9, stillCredited: true),
    ]

    @Test(
        "after the credit: refunded-after-credit on tonight's or an earlier night's order, with its evidence; not on an order marked refunded"
    )
    func afterCredit() {
        let refunds = [
            Self.refund("100", at: "2024-03-02T00:00:00Z"), Self.refund("200", at: "2024-03-02T00:00:00Z", line: 2),
            Self.refund("300", at: "2024-03-02T00:00:00Z", line: 3),
            Self.refund("999", at: "2024-03-02T00:00:00Z", line: 4),
        ]
        let out = RefundJudge().judge(refunds, taker: { Self.takers[$0] }, reportedRefund: { _ in false })
        #expect(out.judged.map(\.taker.orderID) == ["o-tonight", "o-earlier"])
        #expect(out.judged.allSatisfy { $0.rule.id == RefundedAfterCredit.id })
        #expect(out.matched == 3 && out.unmatched == 1)
        let e = out.judged[0].words.evidence.json
        #expect(e["transaction_id"] == .string("100") && e["event"] == .string("REFUND"))
        #expect(
            e["refunded_at"] == .string("2024-03-02T00:00:00Z") && e["credited_at"] == .string("2024-03-01T10:00:00Z"))
        #expect(e["reason"] == .string("app-issue") && e["source"] == .null)
        #expect(out.judged[0].words.message.contains("events.jsonl:1"))
    }

    @Test("a refund of a purchase whose order tonight's dump marks refunded is matched, and raises nothing")
    func givenBack() {
        let refunds = [Self.refund("500", at: "2024-03-02T00:00:00Z"), Self.refund("999", at: "2024-03-02T00:00:00Z")]
        let out = RefundJudge().judge(
            refunds, taker: { Self.takers[$0] }, givenBack: { $0 == "500" }, reportedRefund: { _ in false })
        #expect(out.judged.isEmpty)
        #expect(out.matched == 1 && out.unmatched == 1)
    }

    @Test("a replay credited on or after its purchase's refund is revoked too; one credited before it is not")
    func revokedReplays() {
        let replay = RefundJudge.Taker(
            orderID: "o-replay", userID: "u9", createdAt: Self.t("2024-03-05T10:00:00Z"), slot: 11, stillCredited: true)
        let early = RefundJudge.Taker(
            orderID: "o-early", userID: "u9", createdAt: Self.t("2024-03-01T12:00:00Z"), slot: 12, stillCredited: true)
        let refund = Self.refund("100", at: "2024-03-02T00:00:00Z", line: 3)
        let out = RefundJudge().revokedReplays(
            [("100", replay), ("100", early), ("777", replay)], firstRefund: { $0 == "100" ? (2, refund) : nil })
        #expect(out.map(\.taker.orderID) == ["o-replay"])
        #expect(out.first?.rule.id == Revoked.id && out.first?.index == 2)
        #expect(out.first?.words.message.contains("before the order was credited on 2024-03-05T10:00:00Z") == true)
    }

    @Test("before the credit: revoked (a refunded purchase credited again); a transaction is judged once a night")
    func beforeCredit() {
        let refunds = [
            Self.refund("400", at: "2024-03-02T00:00:00Z"),
            Self.refund("400", at: "2024-03-03T00:00:00Z", event: "refund-history"),
        ]
        let out = RefundJudge().judge(refunds, taker: { Self.takers[$0] }, reportedRefund: { _ in false })
        #expect(out.judged.map { $0.rule.id } == [Revoked.id])
        #expect(out.judged.first?.words.evidence.json["refunded_at"] == .string("2024-03-02T00:00:00Z"))
        #expect(out.matched == 2)
    }

    @Test("a reversal is refund-reversed only after a refund an earlier run reported")
    func reversal() {
        let reversals = [
            Self.refund("100", at: "2024-03-06T00:00:00Z", kind: .reversal, event: "REFUND_REVERSED"),
            Self.refund("200", at: "2024-03-06T00:00:00Z", kind: .reversal, event: "REFUND_REVERSED"),
        ]
        let out = RefundJudge().judge(reversals, taker: { Self.takers[$0] }, reportedRefund: { $0 == "o-earlier" })
        #expect(out.judged.map(\.taker.orderID) == ["o-earlier"])
        #expect(out.judged.first?.rule.id == RefundReversed.id)
        #expect(out.judged.first?.words.evidence.json["reversed_at"] == .string("2024-03-06T00:00:00Z"))
    }

    @Test(
        "a reversal read after tonight's refund of the same order is refund-reversed too; one read before it, or of a refund not reported, is not"
    )
    func reversalTonight() {
        let events = [
            Self.refund("400", at: "2024-03-06T00:00:00Z", kind: .reversal, event: "REFUND_REVERSED"),
            Self.refund("100", at: "2024-03-02T00:00:00Z", line: 2),
            Self.refund("300", at: "2024-03-02T00:00:00Z", line: 3),
            Self.refund("100", at: "2024-03-06T00:00:00Z", kind: .reversal, event: "REFUND_REVERSED", line: 4),
            Self.refund("300", at: "2024-03-06T00:00:00Z", kind: .reversal, event: "REFUND_REVERSED", line: 5),
            Self.refund("400", at: "2024-03-07T00:00:00Z", line: 6),
        ]
        let out = RefundJudge().judge(events, taker: { Self.takers[$0] }, reportedRefund: { _ in false })
        #expect(
            out.judged.map { "\($0.taker.orderID) \($0.rule.id)" }
                == ["o-tonight refunded-after-credit", "o-tonight refund-reversed", "o-late refunded-after-credit"])
        #expect(out.judged.map(\.index) == [1, 3, 5])
    }
}
