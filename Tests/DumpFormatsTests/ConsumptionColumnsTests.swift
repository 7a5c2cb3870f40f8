import DumpFormats
import IAPBasics
import Testing

@Suite("The consumed and consent columns an order may carry")
struct ConsumptionColumnsTests {
    private func orders(_ name: String, _ text: String) throws -> [Result<OrderRow, UnreadableRecord>] {
        try readOrders(name, text)
    }

    @Test(
        "consumed: a fraction or a percentage, rounded to the milliunit Apple counts in",
        arguments: [
            ("0", 0), ("1", 100_000), ("0.25", 25_000), ("25%", 25_000), ("25 %", 25_000), ("100%", 100_000),
            ("0%", 0), ("0.333333", 33_333), ("33.3333%", 33_333), ("0.5%", 500), ("0.000004", 0), ("0.000005", 1),
        ])
    func consumedValues(text: String, milliunits: Int32) throws {
        let csv = "order_id,user_id,created_at,consumed\n1,u1,2024-03-01 10:00:00,\(text)\n"
        let order = try #require(try orders("o.csv", csv).first?.get())
        #expect(order.consumed?.milliunits == milliunits)
    }

    @Test(
        "a consumed value that is no share of the whole makes the row malformed, naming it",
        arguments: ["1.5", "101%", "-0.1", "half", "50", "%", "0.1234567"])
    func consumedRefused(text: String) throws {
        let csv = "order_id,user_id,created_at,consumed\n1,u1,2024-03-01 10:00:00,\(text)\n"
        let first = try #require(try orders("o.csv", csv).first)
        guard case .failure(let m) = first else {
            Issue.record("\(text) was read as \(first)")
            return
        }
        #expect(m.reason == "consumed \"\(text)\" is not a fraction from 0 to 1 or a percentage from 0% to 100%")
        #expect(m.location.position == .line(2))
    }

    @Test("consent: yes, true, 1 or no, false, 0 in any case; empty is unknown; anything else is malformed")
    func consent() throws {
        let csv = """
            order_id,user_id,created_at,consent
            1,u1,2024-03-01 10:00:00,YES
            2,u1,2024-03-01 10:00:00,false
            3,u1,2024-03-01 10:00:00,1
            4,u1,2024-03-01 10:00:00,
            5,u1,2024-03-01 10:00:00,maybe
            """
        let rows = try orders("o.csv", csv)
        #expect(try rows[0].get().consent == .yes)
        #expect(try rows[1].get().consent == .no)
        #expect(try rows[2].get().consent == .yes)
        #expect(try rows[3].get().consent == nil)
        guard case .failure(let m) = rows[4] else {
            Issue.record("maybe was read")
            return
        }
        #expect(m.reason == "consent \"maybe\" is not yes or no")
    }

    @Test("the columns' aliases: consumption, used, consumption_consent, data-consent")
    func aliases() throws {
        let jsonl = """
            {"order_id":"1","user_id":"u","created_at":"2024-03-01T10:00:00Z","used":"40%","Data-Consent":"no"}
            {"order_id":"2","user_id":"u","created_at":"2024-03-01T10:00:00Z","consumption":0.4,"consumption_consent":true}
            """
        let rows = try orders("o.jsonl", jsonl)
        #expect(try rows[0].get().consumed?.milliunits == 40_000)
        #expect(try rows[0].get().consent == .no)
        #expect(try rows[1].get().consumed?.milliunits == 40_000)
        #expect(try rows[1].get().consent == .yes)
    }

    @Test("a share says itself as a percentage")
    func percentText() throws {
        #expect(try #require(ConsumedShare(milliunits: 25_000)).percentText == "25%")
        #expect(try #require(ConsumedShare(milliunits: 33_333)).percentText == "33.333%")
        #expect(try #require(ConsumedShare(milliunits: 500)).percentText == "0.5%")
        #expect(ConsumedShare(milliunits: 100_001) == nil)
    }
}
