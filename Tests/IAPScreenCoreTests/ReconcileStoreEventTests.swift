import Decompression
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

@Suite("reconcile with store events: Apple per transaction")
struct ReconcileStoreEventTests {
    static func t(_ s: String) -> Timestamp { Timestamp.parse(s) ?? Timestamp(clampingMillis: 0) }

    /// A notification of `type` about gems transaction `txn`, priced `price` milliunits of USD
    /// (0.99 unless said; nil: no price or currency).
    static func notification(
        _ type: String, _ txn: String, revoked: Bool = false, price: Int64? = 990, pki: TestPKI
    ) throws -> String {
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: "com.example.game", productID: "com.example.gems100",
            type: "Consumable", purchaseDate: Self.t("2024-03-01T19:59:00Z"),
            signedDate: Self.t("2024-03-01T19:59:00Z"))
        if let price {
            tx.price = price
            tx.currency = "USD"
        }
        if revoked { tx.revocationDate = Self.t("2024-03-03T00:00:00Z") }
        return try JWSBuilder.notification(
            JWSBuilder.Notification(
                notificationType: type, notificationUUID: "u-\(type)-\(txn)", bundleID: "com.example.game",
                signedDate: Self.t("2024-03-03T00:00:00Z"), transaction: tx),
            with: pki.jwsSigner)
    }

    /// A Rules directory trusting a new PKI, an orders dump of gems `credits` (order id,
    /// transaction) credited on 03/01, and an Apple report selling `units` of them that day.
    static func fixture(credits: [(String, String)], units: Int) throws -> (
        f: ReconcileFixture, pki: TestPKI, orders: String, report: String
    ) {
        let f = try ReconcileFixture()
        let pki = try TestPKI()
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: f.rules), googlePackageNames: [])
        let rows = credits.enumerated().map { k, c in
            "\(c.0),u\(k + 1),gems_100,ios,\(c.1),0.99,USD,credited,2024-03-01T20:00:00Z\n"
        }
        let orders = try f.s.write(
            "orders.csv",
            "order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at\n" + rows.joined())
        let apple =
            [
                "Provider\tProvider Country\tSKU\tDeveloper\tTitle\tVersion\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCurrency of Proceeds\tApple Identifier\tCustomer Price",
                "APPLE\tUS\tcom.example.gems100\tEx\tGems\t\tIA1\t\(units)\t0.70\t03/01/2024\t03/01/2024\tUSD\tUS\tUSD\t1\t0.99",
                "Total_Rows\t1",
            ].joined(separator: "\n") + "\n"
        let report = try f.writeBytes("S_D_8001_20240301.txt.gz", try #require(GzipEncoder.compress(Array(apple.utf8))))
        return (f, pki, orders, report)
    }

    @Test(
        "a charge without price or currency no order credits: a lost order counted under currency unknown, its amount unknown, never an empty currency or 0.00; --quiet says nothing"
    )
    func unpricedCharge() throws {
        let (f, pki, orders, report) = try Self.fixture(credits: [("R1", "5001")], units: 1)
        let events = try f.s.write(
            "events.jsonl",
            [
                try Self.notification("ONE_TIME_CHARGE", "5001", pki: pki),
                try Self.notification("DID_RENEW", "5007", price: nil, pki: pki),
            ].joined(separator: "\n") + "\n")
        let run = try f.run(["--orders", orders, "--store-report", report, "--store-events", events])
        #expect(run.status == 0, "\(run.stderr)")
        let stores = try #require(try f.json()["stores"]?.object?["apple"]?.object)
        #expect(stores[""] == nil, "no bucket with an empty currency")
        let lost = try #require(stores["unknown"]?.object?["lost-order"]?.object)
        #expect(lost["count"]?.int64 == 1 && lost["amount"] == .null && lost["unknown_amounts"]?.int64 == 1)
        #expect(stores["USD"]?.object?["matched"]?.object?["count"]?.int64 == 1)
        #expect(run.stderr.contains("apple currency unknown: 0 matched (0.00), 1 lost-order (amount unknown)"))

        // --quiet, as every command: the same files, nothing on stderr.
        let before = try f.s.read("out/reconciliation.csv")
        let quiet = try f.run(["--orders", orders, "--store-report", report, "--store-events", events, "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(try f.s.read("out/reconciliation.csv") == before)
    }

    @Test(
        "a charge no order credits is a lost order, a refund of a credited order is refunded-still-credited, and those transactions leave the unit comparison"
    )
    func perTransaction() throws {
        // Four sales on 03/01 (Pacific): 5001, 5002, 5003 and R3's, which names no transaction.
        let (f, pki, orders, report) = try Self.fixture(
            credits: [("R1", "5001"), ("R2", "5002"), ("R3", "")], units: 4)
        func notification(_ type: String, _ txn: String, revoked: Bool = false) throws -> String {
            try Self.notification(type, txn, revoked: revoked, pki: pki)
        }
        let events = try f.s.write(
            "events.jsonl",
            [
                try notification("ONE_TIME_CHARGE", "5001"), try notification("ONE_TIME_CHARGE", "5003"),
                try notification("REFUND", "5002", revoked: true),
            ].joined(separator: "\n") + "\n")

        let run = try f.run(["--orders", orders, "--store-report", report, "--store-events", events])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try f.s.read("out/reconciliation.csv").split(separator: "\n").dropFirst().map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("apple,lost-order,,5003,") })
        #expect(lines.contains { $0.hasPrefix("apple,refunded-still-credited,R2,5002,") })
        let json = try f.json()
        let usd = json["stores"]?.object?["apple"]?.object?["USD"]?.object
        #expect(usd?["matched"]?.object?["count"]?.int64 == 2, "5001 by its transaction, R3 by units")
        #expect(
            usd?["unit-difference"]?.object?["count"]?.int64 == nil
                || usd?["unit-difference"]?.object?["count"]?.int64 == 0)

        // Without the events, the same night is compared by units alone.
        let units = try f.run(["--orders", orders, "--store-report", report])
        #expect(units.status == 0)
        let unitLines = try f.s.read("out/reconciliation.csv").split(separator: "\n").dropFirst()
        #expect(unitLines.count == 1 && unitLines.first?.hasPrefix("apple,unit-difference") == true)
    }
}
