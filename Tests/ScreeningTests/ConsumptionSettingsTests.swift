import Screening
import Testing

@Suite("Rules for answering refund requests: the consumption statement and the catalog's columns")
struct ConsumptionSettingsTests {
    @Test("without a consumption statement: decline after 2 refunds or all of it used, no prorating")
    func defaults() throws {
        let rules = try TempRules([:]).load().get()
        let c = rules.settings.consumption
        #expect(c.declineAfterRefunds == 2)
        #expect(c.declineWhenConsumed == 100)
        #expect(!c.prorate)
        #expect(
            ConsumptionSettings.parameters.map(\.name) == ["decline_after_refunds", "decline_when_consumed", "prorate"])
    }

    @Test("consumption sets its parameters, on one line or several; the later file wins")
    func setting() throws {
        let rules = try TempRules([
            "a.rules": "consumption decline_after_refunds 3 prorate yes\nconsumption decline_when_consumed 80\n",
            "b.rules": "consumption decline_after_refunds 4\n",
        ]).load().get()
        let c = rules.settings.consumption
        #expect(c.declineAfterRefunds == 4)
        #expect(c.declineWhenConsumed == 80)
        #expect(c.prorate)
    }

    @Test("rules check says what is wrong with a consumption line, where, and what would do")
    func problems() throws {
        let problems = try TempRules([
            "c.rules": """
            consumption
            consumption decline_after_refund 3
            consumption decline_when_consumed 101
            consumption prorate 2
            consumption decline_after_refunds 0
            consumtion prorate yes
            """
        ]).problems()
        #expect(problems.map(\.line) == [1, 2, 3, 4, 5, 6])
        #expect(problems[0].message == "consumption says nothing")
        #expect(problems[1].message == "consumption has no parameter 'decline_after_refund'")
        #expect(problems[1].hint == "did you mean 'decline_after_refunds'?")
        #expect(problems[1].column == 13)
        #expect(
            problems[2].message == "consumption decline_when_consumed takes a whole number from 0 to 100, not '101'")
        #expect(problems[3].message == "consumption prorate takes yes or no, not '2'")
        #expect(problems[4].message == "consumption decline_after_refunds takes a whole number from 1 to 1000, not '0'")
        #expect(problems[5].hint == "did you mean 'consumption'?")
    }

    @Test("catalog.csv: sample_content and period_days are read; bad values are problems with their line")
    func catalogColumns() throws {
        let rules = try TempRules([
            "catalog.csv": """
            item_id,platform,product_id,type,price,currency,sample_content,period_days
            gems,ios,com.x.gems,consumable,4.99,USD,yes,
            pass,ios,com.x.pass,non_renewing,9.99,USD,,30
            vip,ios,com.x.vip,auto_renewable,9.99,USD,no,
            """
        ]).load().get()
        #expect(rules.catalog.item("gems", platform: .ios)?.sampleContent == true)
        #expect(rules.catalog.item("pass", platform: .ios)?.sampleContent == false)
        #expect(rules.catalog.item("pass", platform: .ios)?.periodDays == 30)
        #expect(rules.catalog.item("vip", platform: .ios)?.periodDays == nil)

        let problems = try TempRules([
            "catalog.csv": """
            item_id,platform,product_id,type,price,currency,sample_content,period_days
            gems,ios,com.x.gems,consumable,4.99,USD,perhaps,
            pass,ios,com.x.pass,non_renewing,9.99,USD,no,0
            week,ios,com.x.week,non_renewing,9.99,USD,no,7 days
            """
        ]).problems()
        #expect(problems.map(\.line) == [2, 3, 4])
        #expect(problems[0].message == "sample_content 'perhaps' is not yes or no")
        #expect(problems[1].message == "period_days '0' is not a whole number of days from 1 to 3660")
        #expect(problems[2].message == "period_days '7 days' is not a whole number of days from 1 to 3660")
    }
}
