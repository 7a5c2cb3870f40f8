import Consumption
import DumpFormats
import IAPBasics
import JSONText
import Screening
import Testing

@Suite("consumption.jsonl's line and the requests' counts")
struct ConsumptionLineTests {
    @Test("a line names the request, its order and user, the PUT path, the body and why, in that order")
    func line() throws {
        let request = ConsumptionDeciderTests.request()
        let facts = ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order(consumed: 100_000))
        let answer = ConsumptionDecider(settings: ConsumptionSettings()).answer(request, facts)
        let object = ConsumptionLine.json(request, facts, answer)
        #expect(
            object.members.map(\.key) == [
                "notification_uuid", "transaction_id", "original_transaction_id", "product_id", "type", "requested_at",
                "answer_by", "reason", "order_id", "user_id", "status", "put", "body", "why",
            ])
        #expect(object["type"]?.string == "consumable")
        #expect(object["requested_at"]?.string == "2024-03-04T12:00:00Z")
        #expect(object["answer_by"]?.string == "2024-03-05T00:00:00Z")
        #expect(object["order_id"]?.string == "ORD-1")
        #expect(object["status"]?.string == "answer")
        #expect(object["put"]?.string == "/inApps/v2/transactions/consumption/2000000000000301")
        #expect(object["body"]?.object?["refundPreference"]?.string == "DECLINE")
        #expect(object["original_transaction_id"].map { $0 == .null } == true)

        let refused = ConsumptionDecider(settings: ConsumptionSettings()).answer(
            request, ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order(), consent: .no))
        let line = ConsumptionLine.json(request, facts, refused)
        #expect(line["status"]?.string == "no-consent")
        #expect(line["body"].map { $0 == .null } == true)
    }

    @Test("counts: answered by preference, no-consent apart, every state in summary.json's order")
    func counts() {
        let decider = ConsumptionDecider(settings: ConsumptionSettings())
        var counts = ConsumptionCounts()
        let r = ConsumptionDeciderTests.request()
        for facts in [
            ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order(consumed: 100_000)),
            ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order(status: .refunded)),
            ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order()),
            ConsumptionDeciderTests.facts(ConsumptionDeciderTests.order(), consent: nil),
        ] {
            counts.read += 1
            counts.add(decider.answer(r, facts))
        }
        counts.late = 2
        counts.invalid = 1
        #expect(
            JSONWriter().string(.object(counts.json))
                == #"{"read":4,"answered":3,"no_consent":1,"late":2,"invalid":1,"decline":1,"grant_full":1,"grant_prorated":0,"no_preference":1}"#
        )
    }
}
