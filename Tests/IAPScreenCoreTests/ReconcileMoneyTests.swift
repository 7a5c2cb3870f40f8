import Foundation
import JSONText
import Testing

/// Money in reconcile's three outputs is written as people write it in its currency.
@Suite("reconcile writes money at its currency's scale")
struct ReconcileMoneyTests {
    @Test(
        "Apple's milliunit prices and their sums print as 0.99 and 4.99 USD, not 0.990 and 4.990, in the CSV, the JSON and the summary"
    )
    func milliunitPrices() throws {
        let (f, pki, orders, report) = try ReconcileStoreEventTests.fixture(credits: [("R1", "5001")], units: 2)
        let events = try f.s.write(
            "events.jsonl",
            [
                try ReconcileStoreEventTests.notification("ONE_TIME_CHARGE", "5001", pki: pki),
                try ReconcileStoreEventTests.notification("ONE_TIME_CHARGE", "5002", price: 4990, pki: pki),
            ].joined(separator: "\n") + "\n")
        let run = try f.run(["--orders", orders, "--store-report", report, "--store-events", events])
        #expect(run.status == 0, "\(run.stderr)")

        let csv = try f.s.read("out/reconciliation.csv")
        let lost = try #require(csv.split(separator: "\n").first { $0.hasPrefix("apple,lost-order,,5002,") })
        #expect(lost.split(separator: ",", omittingEmptySubsequences: false).dropFirst(10).first == "4.99", "\(lost)")
        let usd = try #require(try f.json()["stores"]?.object?["apple"]?.object?["USD"]?.object)
        #expect(usd["matched"]?.object?["amount"]?.string == "0.99")
        #expect(usd["lost-order"]?.object?["amount"]?.string == "4.99")
        #expect(run.stderr.contains("apple USD: 1 matched (0.99), 1 lost-order (4.99)"), "\(run.stderr)")
        #expect(!csv.contains(".990") && !run.stderr.contains(".990"))
    }

    @Test(
        "JPY and KRW print without decimals, BHD with three, USD with two; an amount with more digits than its currency has is printed exactly"
    )
    func currencyScales() throws {
        let f = try ReconcileFixture()
        let orders = try f.s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at
            ORD-jpy,u1,gems_100,android,GPA.jpy,150,JPY,credited,2024-03-01T12:00:30Z
            ORD-bhd,u2,gems_100,android,GPA.bhd,1.5,BHD,credited,2024-03-01T12:00:30Z
            ORD-usd,u3,gems_100,android,GPA.usd,0.995,USD,credited,2024-03-01T12:00:30Z
            ORD-eur,u4,gems_100,android,GPA.eur,2,EUR,credited,2024-03-01T12:00:30Z

            """)
        typealias F = ReconcileFixture
        let sales = try f.s.write(
            "sales.csv",
            [
                F.salesHeader, F.sale("GPA.jpy", amount: "150", currency: "JPY"),
                F.sale("GPA.bhd", amount: "1.25", currency: "BHD"),
                F.sale("GPA.usd", amount: "0.995", currency: "USD"), F.sale("GPA.eur", amount: "2", currency: "EUR"),
                F.sale("GPA.krw", amount: "1200", currency: "KRW"),
            ].joined(separator: "\n") + "\n")
        let run = try f.run(["--orders", orders, "--store-report", sales])
        #expect(run.status == 0, "\(run.stderr)")

        let google = try #require(try f.json()["stores"]?.object?["google"]?.object)
        func amount(_ currency: String, _ bucket: String) -> String? {
            google[currency]?.object?[bucket]?.object?["amount"]?.string
        }
        #expect(amount("JPY", "matched") == "150")
        #expect(amount("KRW", "lost-order") == "1200")
        #expect(amount("KRW", "matched") == "0")
        #expect(amount("BHD", "amount-mismatch") == "-0.250")
        #expect(amount("USD", "matched") == "0.995", "a third decimal in USD is a real digit: kept")
        #expect(amount("EUR", "matched") == "2.00")

        let rows = try f.s.read("out/reconciliation.csv").split(separator: "\n").dropFirst()
        let bhd = try #require(rows.first { $0.contains("GPA.bhd") })
        #expect(bhd.contains(#",1.500,1.250,"the store charged 1.250 BHD, we credited 1.500 BHD""#), "\(bhd)")
        let krw = try #require(rows.first { $0.contains("GPA.krw") })
        #expect(krw.contains(",,1200,"), "\(krw)")
        for line in ["google JPY: 1 matched (150)", "google KRW: 0 matched (0), 1 lost-order (1200)"] {
            #expect(run.stderr.contains(line), "\(run.stderr)")
        }
    }
}
