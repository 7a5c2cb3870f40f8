import Decompression
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

@Suite("reconcile with store events: Apple per transaction")
struct ReconcileStoreEventTests {
    static func t(_ s: String) -> Timestamp { Timestamp.parse(s) ?? Timestamp(clampingMillis: 0) }

    @Test(
        "a charge no order credits is a lost order, a refund of a credited order is refunded-still-credited, and those transactions leave the unit comparison"
    )
    func perTransaction() throws {
        let f = try ReconcileFixture()
        let pki = try TestPKI()
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: f.rules), googlePackageNames: [])
        let orders = try f.s.write(
            "orders.csv",
            """
            order_id,user_id,item_id,platform,transaction_id,amount,currency,status,created_at
            R1,u1,gems_100,ios,5001,0.99,USD,credited,2024-03-01T20:00:00Z
            R2,u2,gems_100,ios,5002,0.99,USD,credited,2024-03-01T20:00:00Z
            R3,u3,gems_100,ios,,0.99,USD,credited,2024-03-01T20:00:00Z

            """)
        func notification(_ type: String, _ txn: String, revoked: Bool = false) throws -> String {
            var tx = JWSBuilder.Transaction(
                transactionID: txn, bundleID: "com.example.game", productID: "com.example.gems100",
                type: "Consumable", purchaseDate: Self.t("2024-03-01T19:59:00Z"),
                signedDate: Self.t("2024-03-01T19:59:00Z"))
            tx.price = 990
            tx.currency = "USD"
            if revoked { tx.revocationDate = Self.t("2024-03-03T00:00:00Z") }
            return try JWSBuilder.notification(
                JWSBuilder.Notification(
                    notificationType: type, notificationUUID: "u-\(type)-\(txn)", bundleID: "com.example.game",
                    signedDate: Self.t("2024-03-03T00:00:00Z"), transaction: tx),
                with: pki.jwsSigner)
        }
        let events = try f.s.write(
            "events.jsonl",
            [
                try notification("ONE_TIME_CHARGE", "5001"), try notification("ONE_TIME_CHARGE", "5003"),
                try notification("REFUND", "5002", revoked: true),
            ].joined(separator: "\n") + "\n")
        // Four sales on 03/01 (Pacific): 5001, 5002, 5003 and R3's, which names no transaction.
        let apple =
            [
                "Provider\tProvider Country\tSKU\tDeveloper\tTitle\tVersion\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCurrency of Proceeds\tApple Identifier\tCustomer Price",
                "APPLE\tUS\tcom.example.gems100\tEx\tGems\t\tIA1\t4\t0.70\t03/01/2024\t03/01/2024\tUSD\tUS\tUSD\t1\t0.99",
                "Total_Rows\t1",
            ].joined(separator: "\n") + "\n"
        let report = try f.writeBytes("S_D_8001_20240301.txt.gz", try #require(GzipEncoder.compress(Array(apple.utf8))))

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
