import Decompression
import Foundation
import JSONText
import Testing

/// A small world written by the test: a Rules directory, an orders dump and store reports.
struct ReconcileFixture {
    let s: Scratch
    let rules: String

    init() throws {
        s = try Scratch()
        rules = s.file("Rules")
        try s.write(
            "Rules/catalog.csv",
            """
            item_id,platform,product_id,type,price,currency
            gems_100,android,gems_100,consumable,0.99,USD
            gems_100,ios,com.example.gems100,consumable,0.99,USD
            no_ads,android,no_ads,non_consumable,2.99,USD

            """)
        try s.write("Rules/apps.csv", "platform,app_id\nandroid,com.example.game\nios,com.example.game\n")
    }

    static let salesHeader =
        "Order Number,Order Charged Date,Order Charged Timestamp,Financial Status,Device Model,Product Title,"
        + "Product ID,Product Type,SKU ID,Currency of Sale,Item Price,Taxes Collected,Charged Amount,Country of Buyer"

    /// 1709294400 is 2024-03-01T12:00:00Z.
    static func sale(
        _ order: String, _ status: String = "Charged", at seconds: Int = 1_709_294_400, sku: String = "gems_100",
        amount: String = "0.99", currency: String = "USD", package: String = "com.example.game"
    ) -> String {
        "\(order),2024-03-01,\(seconds),\(status),d2x,Gems,\(package),inapp,\(sku),\(currency),\(amount),0.00,\(amount),US"
    }

    func utf16LE(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xFE]
        for unit in text.replacingOccurrences(of: "\n", with: "\r\n").utf16 {
            out += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        return out
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = s.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func run(_ args: [String]) throws -> ToolRun {
        try Tool.run(["reconcile", "--rules", rules, "--out", s.file("out")] + args)
    }

    /// reconciliation.csv as `store bucket order_id store_order_id` lines (with the day for Apple).
    func rows() throws -> [String] {
        try s.read("out/reconciliation.csv").split(separator: "\n").dropFirst().map { line in
            let c = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return c[0] == "apple"
                ? "\(c[0]) \(c[1]) \(c[4]) \(c[5]) \(c[7])/\(c[8])" : "\(c[0]) \(c[1]) \(c[2]) \(c[3])"
        }
    }

    func json() throws -> JSONObject {
        try #require(try JSONParser.parse(try s.read("out/reconciliation.json")).object)
    }
}

@Suite("iapscreen reconcile", .serialized)
struct ReconcileCommandTests {
    @Test("every bucket and every legitimate case, from reports in every variant the stores ship")
    func bucketsAndLegitCases() throws {
        let f = try ReconcileFixture()
        let orders = try f.s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,product_id,platform,transaction_id,amount,currency,status,environment,created_at
            ORD-ok,u1,gems_100,,android,GPA.ok,0.99,USD,credited,,2024-03-01T12:00:30Z
            ORD-unpaid,u2,gems_100,,android,GPA.unpaid,0.99,USD,credited,,2024-03-01T12:00:00Z
            ORD-refunded,u3,gems_100,,android,GPA.refunded,0.99,USD,credited,,2024-03-01T12:00:00Z
            ORD-both-refunded,u3,gems_100,,android,GPA.both,0.99,USD,refunded,,2024-03-01T12:00:00Z
            ORD-price,u4,gems_100,,android,GPA.price,0.99,USD,credited,,2024-03-01T12:00:00Z
            ORD-late,u5,gems_100,,android,GPA.late,0.99,USD,credited,,2024-03-02T00:01:00Z
            ORD-sub0,u6,,no_ads,android,GPA.sub..0,2.99,USD,credited,,2024-03-01T12:00:00Z
            ORD-sub1,u6,,no_ads,android,GPA.sub..1,2.99,USD,credited,,2024-03-01T13:00:00Z
            ORD-qa,u7,gems_100,,android,,0.99,USD,credited,sandbox,2024-03-01T12:00:00Z
            ORD-restore,u8,no_ads,,android,GPA.sub..0,0.00,USD,credited,,2024-03-01T14:00:00Z
            ORD-other,u9,,other_sku,android,GPA.other,5.00,USD,credited,,2024-03-01T12:00:00Z
            ORD-pending,u10,gems_100,,android,GPA.pending,0.99,USD,pending,,2024-03-01T12:00:00Z
            =ORD-formula,u11,gems_100,,android,GPA.formula,0.99,USD,credited,,2024-03-01T12:00:00Z
            ORD-ios1,u12,gems_100,,ios,,0.99,USD,credited,,2024-03-01T20:00:00Z
            ORD-ios2,u13,gems_100,,ios,,0.99,USD,credited,,2024-03-03T20:00:00Z
            ORD-ios3,u14,gems_100,,ios,,0.99,USD,credited,,2024-03-06T20:00:00Z

            """)
        typealias F = ReconcileFixture
        let sales =
            [
                F.salesHeader,
                F.sale("GPA.ok"), F.sale("GPA.lost"),
                F.sale("GPA.refunded"), F.sale("GPA.refunded", "Refund", amount: "-0.99"),
                F.sale("GPA.both"), F.sale("GPA.both", "REFUNDED", amount: "-0.99"),
                F.sale("GPA.price", amount: "1.09", currency: "EUR"),
                F.sale("GPA.late", at: 1_709_337_000),
                F.sale("GPA.sub..0", sku: "no_ads", amount: "2.99"),
                F.sale("GPA.sub..1", sku: "no_ads", amount: "2.99"),
                F.sale("GPA.other", sku: "other_sku", amount: "5.00"),
                F.sale("GPA.foreign", package: "com.cheap.clone"),
                F.sale("GPA.broken", at: 0).replacingOccurrences(of: ",0,", with: ",not-a-time,"),
            ].joined(separator: "\n") + "\n"
        let earnings = """
            Description,Transaction Date,Transaction Time,Tax Type,Transaction Type,Refund Type,Product Title,Product id,Product Type,Sku Id,Hardware,Buyer Country,Buyer State,Buyer Postal Code,Buyer Currency,Amount (Buyer Currency),Currency Conversion Rate,Merchant Currency,Amount (Merchant Currency)
            GPA.ok,"Mar 1, 2024",04:00:30 PST,,Charge,,Gems,com.example.game,inapp,gems_100,d2x,US,,,USD,0.99,1,USD,0.99
            GPA.ok,"Mar 1, 2024",04:00:30 PST,,Google fee,,Gems,com.example.game,inapp,gems_100,d2x,US,,,USD,-0.15,1,USD,-0.15

            """
        let zip = ZipWriter()
        zip.add("salesreport_202403.csv", f.utf16LE(sales), method: .deflated)
        let salesZip = try f.writeBytes("salesreport_202403.zip", zip.finish())
        let earningsZipWriter = ZipWriter()
        earningsZipWriter.add("PlayApps_202403.csv", Array(earnings.utf8), method: .stored)
        let earningsZip = try f.writeBytes("PlayApps_202403.zip", earningsZipWriter.finish())
        let apple =
            [
                "Provider\tProvider Country\tSKU\tDeveloper\tTitle\tVersion\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCurrency of Proceeds\tApple Identifier\tCustomer Price",
                "APPLE\tUS\tcom.example.gems100\tEx\tGems\t\tIA1\t1\t0.70\t03/01/2024\t03/01/2024\tUSD\tUS\tUSD\t1\t0.99",
                "APPLE\tUS\tcom.example.gems100\tEx\tGems\t\tIA1\t1\t0.70\t03/02/2024\t03/02/2024\tUSD\tUS\tUSD\t1\t0.99",
                "APPLE\tUS\tcom.example.gems100\tEx\tGems\t\tIA1\t2\t0.70\t03/05/2024\t03/05/2024\tUSD\tUS\tUSD\t1\t0.99",
                "APPLE\tUS\tcom.example.game\tEx\tGame\t\t1F\t9\t0\t03/05/2024\t03/05/2024\tUSD\tUS\tUSD\t1\t0",
                "Total_Rows\t4",
            ].joined(separator: "\n") + "\n"
        let appleGz = try f.writeBytes(
            "S_D_8001_20240301.txt.gz", try #require(GzipEncoder.compress(Array(apple.utf8))))

        let run = try f.run(["--orders", orders, "--store-report", salesZip, earningsZip, appleGz, "--fail-on", "high"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("google USD:"))
        #expect(
            Set(try f.rows()) == [
                "google amount-mismatch ORD-price GPA.price", "google lost-order  GPA.lost",
                "google refunded-still-credited ORD-refunded GPA.refunded",
                "google unpaid-credit ORD-unpaid GPA.unpaid",
                "google unpaid-credit '=ORD-formula GPA.formula", "google timing-difference ORD-late GPA.late",
                "apple timing-difference com.example.gems100 2024-03-02 1/1",
                "apple timing-difference com.example.gems100 2024-03-05 1/1",
                "apple unit-difference com.example.gems100 2024-03-05 0/2",
            ])
        #expect(try f.rows().count == 9)
        // A cell that could run as a formula is quoted for spreadsheets.
        #expect(!(try f.s.read("out/reconciliation.csv")).contains(",=ORD"))

        let json = try f.json()
        let google = try #require(json["stores"]?.object?["google"]?.object)
        #expect(google["USD"]?.object?["matched"]?.object?["count"]?.int64 == 4)  // ok, both, sub..0, sub..1
        #expect(google["USD"]?.object?["lost-order"]?.object?["amount"]?.string == "0.99")
        #expect(google["EUR"]?.object?["amount-mismatch"]?.object?["count"]?.int64 == 1)
        #expect(
            json["stores"]?.object?["apple"]?.object?["USD"]?.object?["unit-difference"]?.object?["count"]?.int64 == 1)
        let skipped = try #require(json["skipped"]?.array)
        #expect(skipped.count == 1)
        #expect(skipped.first?.object?["file"]?.string == salesZip + "/salesreport_202403.csv")
        #expect(skipped.first?.object?["line"]?.int64 == 14)
        let inputs = try #require(json["inputs"]?.array)
        #expect(inputs.map { $0.object?["path"]?.string ?? "" } == [orders, salesZip, earningsZip, appleGz])
        #expect(inputs[1].object?["rows"]?.int64 == 13)
        #expect(inputs.allSatisfy { ($0.object?["sha256"]?.string?.count ?? 0) == 64 })
        let notCompared = try #require(json["not_compared"]?.object)
        #expect(notCompared["orders_sandbox"]?.int64 == 1)
        #expect(notCompared["orders_zero_amount"]?.int64 == 1)
        #expect(notCompared["orders_outside_catalog"]?.int64 == 1)
        #expect(notCompared["orders_not_credited"]?.int64 == 1)

        // Without --fail-on the same run is done: 0.
        #expect(try f.run(["--orders", orders, "--store-report", salesZip, earningsZip, appleGz]).status == 0)
        // --fail-on critical: no bucket is critical.
        #expect(
            try f.run(["--orders", orders, "--store-report", salesZip, earningsZip, appleGz, "--fail-on", "critical"])
                .status == 0)
    }

    @Test(
        "--from/--until and --tolerance-days: the window filters both sides, a late credit past the tolerance is a lost order"
    )
    func windowAndTolerance() throws {
        let f = try ReconcileFixture()
        let orders = try f.s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,platform,transaction_id,status,created_at
            ORD-feb,u1,gems_100,android,GPA.feb,credited,2024-02-20T12:00:00Z
            ORD-late,u2,gems_100,android,GPA.late,credited,2024-03-04T12:00:00Z

            """)
        let sales = try f.s.write(
            "sales.csv",
            [
                ReconcileFixture.salesHeader, ReconcileFixture.sale("GPA.late"),
                ReconcileFixture.sale("GPA.feb", at: 1_708_430_400),
            ].joined(separator: "\n") + "\n")
        #expect(try f.run(["--orders", orders, "--store-report", sales]).status == 0)
        #expect(try f.rows() == ["google lost-order ORD-late GPA.late"])
        #expect(try f.run(["--orders", orders, "--store-report", sales, "--tolerance-days", "3"]).status == 0)
        #expect(try f.rows() == ["google timing-difference ORD-late GPA.late"])
        #expect(
            try f.run(["--orders", orders, "--store-report", sales, "--from", "2024-03-05", "--until", "2024-03-31"])
                .status == 0)
        #expect(try f.rows() == [])
    }

    @Test(
        "an order credited against another app's Google purchase is an unpaid credit: apps.csv filters the store's rows, never ours"
    )
    func foreignAppCredit() throws {
        let f = try ReconcileFixture()
        // The receipt names a package that is not ours; the order took it as a purchase of our gems.
        let clone =
            #"{""packageName"":""com.cheap.clone"",""productId"":""gems_100"",""purchaseTime"":1709294400000,""purchaseState"":0,""purchaseToken"":""tok"",""orderId"":""GPA.clone""}"#
        let orders = try f.s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,platform,receipt,created_at
            ORD-clone,u1,gems_100,,"\(clone)",2024-03-01T12:00:30Z

            """)
        // Our package's report has no such charge; the clone's own row is not ours to compare.
        let sales = try f.s.write(
            "sales.csv",
            [
                ReconcileFixture.salesHeader,
                ReconcileFixture.sale("GPA.clone", package: "com.cheap.clone"),
            ].joined(separator: "\n") + "\n")
        let run = try f.run(["--orders", orders, "--store-report", sales, "--fail-on", "high"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(try f.rows() == ["google unpaid-credit ORD-clone GPA.clone"])
        let usd = try f.json()["stores"]?.object?["google"]?.object?["USD"]?.object
        #expect(usd?["unpaid-credit"]?.object?["amount"]?.string == "0.99")
    }

    @Test("bad usage and bad Rules exit 2, an unreadable report exits 3, and nothing is written")
    func exitStatuses() throws {
        let f = try ReconcileFixture()
        let orders = try f.s.write(
            "orders.csv", "order_id,user_id,item_id,platform,created_at\n1,u,gems_100,android,2024-03-01T00:00:00Z\n")
        let notReport = try f.s.write("notes.csv", "hello,world\n1,2\n")
        let sales = try f.s.write("sales.csv", ReconcileFixture.salesHeader + "\n")
        #expect(try f.run(["--orders", orders]).status == 2)
        #expect(try f.run(["--orders", orders, "--store-report", sales, "--from", "March"]).status == 2)
        #expect(
            try f.run(["--orders", orders, "--store-report", sales, "--from", "2024-03-05", "--until", "2024-03-01"])
                .status == 2)
        #expect(try f.run(["--orders", orders, "--store-report", sales, "--tolerance-days", "-1"]).status == 2)
        #expect(
            try Tool.run([
                "reconcile", "--rules", f.s.file("nowhere"), "--orders", orders, "--store-report", sales,
                "--out", f.s.file("out"),
            ]).status == 2)
        let unreadable = try f.run(["--orders", orders, "--store-report", notReport])
        #expect(unreadable.status == 3)
        #expect(unreadable.stderr.contains("not a store report"))
        #expect(try f.run(["--orders", orders, "--store-report", f.s.file("missing.zip")]).status == 3)
        #expect(!FileManager.default.fileExists(atPath: f.s.file("out/reconciliation.csv")))
        let help = try Tool.run(["reconcile", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--tolerance-days"))
        #expect(try Tool.run(["--help"]).stdout.contains("reconcile"))
    }
}
