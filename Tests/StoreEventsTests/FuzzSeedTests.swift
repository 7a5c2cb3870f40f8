import Decompression
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import StoreEvents
import Testing

/// The seeds of the `events` fuzz harness (`Fuzz/seeds/events/`, copied into its corpus by
/// `Fuzz/run.sh`): one file for every shape of docs/store-events.md and every layout of a log, written
/// by the builders. The test reads each committed seed as the harness does (a name without
/// extension, so the layout is sniffed) and checks it still reads as events, none a problem;
/// `IAPSCREEN_WRITE_FUZZ_SEEDS=1 swift test --filter FuzzSeedTests` writes them again.
///
/// Signed notifications carry the test PKI's chain (some 9 KB a notification); the
/// `small-` seeds are signed by no certificate, so they also fit `Limits.small`, which the
/// harness reads with on inputs whose last byte is odd.
@Suite("Fuzz seeds for store events")
struct FuzzSeedTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/events").path

    /// A seed: its file name, bytes, and what reading it gives.
    struct Seed {
        var name: String
        var bytes: [UInt8]
        var layout: StoreEventFile.Layout
        var types: [String]

        init(_ name: String, _ text: String, _ layout: StoreEventFile.Layout, _ types: [String]) {
            self.name = name
            bytes = Array(text.utf8)
            self.layout = layout
            self.types = types
        }
    }

    static let bought = Timestamp(clampingMillis: 1_709_294_400_000)  // 2024-03-01T12:00:00Z
    static let refunded = Timestamp(clampingMillis: 1_709_553_600_000)  // 2024-03-04T12:00:00Z

    static func transaction(_ id: String, revoked: Bool) -> JWSBuilder.Transaction {
        var tx = JWSBuilder.Transaction(
            transactionID: id, bundleID: EventWorld.bundle, productID: "gems_550",
            purchaseDate: bought, signedDate: revoked ? refunded : bought)
        if revoked {
            tx.revocationDate = refunded
            tx.revocationReason = 1
            tx.revocationType = "REFUND_FULL"
            tx.revocationPercentage = 100_000
        }
        return tx
    }

    static func notification(
        _ type: String, _ uuid: String, _ tx: JWSBuilder.Transaction?,
        by identity: SigningIdentity
    ) throws -> String {
        try JWSBuilder.notification(
            JWSBuilder.Notification(
                notificationType: type, notificationUUID: uuid, bundleID: EventWorld.bundle,
                signedDate: refunded, transaction: tx),
            with: identity)
    }

    static func voided(_ token: String, _ order: String?, reason: Int64, source: Int64)
        -> GoogleVoidedPurchaseBuilder.VoidedPurchase
    {
        var v = GoogleVoidedPurchaseBuilder.VoidedPurchase(
            purchaseToken: token, orderID: order, purchaseTime: bought,
            voidedTime: refunded)
        v.voidedReason = reason
        v.voidedSource = source
        return v
    }

    static func rtdn(_ content: GoogleNotificationBuilder.Content) -> GoogleNotificationBuilder.DeveloperNotification {
        GoogleNotificationBuilder.DeveloperNotification(
            packageName: EventWorld.bundle, eventTime: refunded, content: content)
    }

    /// Field text as CSV writes it.
    static func csvField(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Text as an XML element holds it.
    static func xmlText(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func seeds() throws -> [Seed] {
        let signer = try EventWorld.pki.get().jwsSigner
        let nobody = SigningIdentity.unverifiable(signatureLength: 64)
        let refund = try notification(
            "REFUND", "5f1c0a2e-0000-4000-8000-000000000001", transaction("2000000000000101", revoked: true), by: signer
        )
        let revoke = try notification(
            "REVOKE", "5f1c0a2e-0000-4000-8000-000000000002", transaction("2000000000000102", revoked: true), by: signer
        )
        let smallRefund = try notification(
            "REFUND", "5f1c0a2e-0000-4000-8000-000000000011", transaction("2000000000000111", revoked: true), by: nobody
        )
        let smallReversed = try notification(
            "REFUND_REVERSED", "5f1c0a2e-0000-4000-8000-000000000012", transaction("2000000000000111", revoked: false),
            by: nobody)
        let smallCharge = try notification(
            "ONE_TIME_CHARGE", "5f1c0a2e-0000-4000-8000-000000000013", transaction("2000000000000113", revoked: false),
            by: nobody)
        let smallTest = try notification("TEST", "5f1c0a2e-0000-4000-8000-000000000014", nil, by: nobody)
        // A refund request (§13): its reason and the transaction's account token are what
        // `consumption` reads of it beyond a refund's keys.
        var asked = transaction("2000000000000115", revoked: false)
        asked.appAccountToken = "6F0C3E9E-1B2D-4C5E-8F70-91A2B3C4D5E6"
        var request = JWSBuilder.Notification(
            notificationType: "CONSUMPTION_REQUEST", notificationUUID: "5f1c0a2e-0000-4000-8000-000000000015",
            bundleID: EventWorld.bundle, signedDate: refunded, transaction: asked)
        request.consumptionRequestReason = "UNSATISFIED_WITH_PURCHASE"
        let smallRequest = try JWSBuilder.notification(request, with: nobody)
        let historyEntry = AppStoreEventBuilder.HistoryEntry(
            signedPayload: revoke,
            sendAttempts: [
                AppStoreEventBuilder.SendAttempt(attemptDate: refunded, result: "TIMED_OUT"),
                AppStoreEventBuilder.SendAttempt(attemptDate: Timestamp(clampingMillis: refunded.millis + 60_000)),
            ])
        let smallHistory = AppStoreEventBuilder.NotificationHistoryPage(
            entries: [
                AppStoreEventBuilder.HistoryEntry(
                    signedPayload: smallRefund, sendAttempts: [AppStoreEventBuilder.SendAttempt(attemptDate: refunded)])
            ], paginationToken: "c2a0e3b1-page-2")
        let refundHistory = try AppStoreEventBuilder.RefundHistoryPage(
            transactions: [transaction("2000000000000201", revoked: true)], signedBy: signer, revision: "rev-1")
        let smallRefundHistory = try AppStoreEventBuilder.RefundHistoryPage(
            transactions: [
                transaction("2000000000000211", revoked: true), transaction("2000000000000212", revoked: false),
            ],
            signedBy: nobody, revision: "rev-2")

        let v1 = voided("tok-v1", "GPA.1111-2222-3333-44441", reason: 6, source: 0)
        var v2 = voided("tok-v2", nil, reason: 7, source: 2)
        v2.voidedQuantity = 2
        let v3 = voided("tok-v3", "GPA.1111-2222-3333-44443", reason: 1, source: 1)
        let page = GoogleVoidedPurchaseBuilder.ListPage(voidedPurchases: [v1, v2, v3], nextPageToken: "next-1")
        let kinds: [GoogleNotificationBuilder.Content] = [
            .voidedPurchase(
                purchaseToken: "tok-r1", orderID: "GPA.2222-3333-4444-55551", productType: 2, refundType: 1),
            .voidedPurchase(purchaseToken: "tok-r2", orderID: nil, productType: 2, refundType: 2),
            .subscription(notificationType: 12, purchaseToken: "tok-s1", subscriptionID: "vip_month"),
            .subscription(notificationType: 2, purchaseToken: "tok-s1", subscriptionID: "vip_month"),
            .oneTimeProduct(notificationType: 1, purchaseToken: "tok-o1", sku: "gems_100"),
            .test,
        ]
        let kindTypes = [
            "rtdn-voided", "rtdn-voided", "rtdn-revoked", "rtdn-subscription", "rtdn-one-time-product", "rtdn-test",
        ]
        let pushes = kinds.enumerated().map { i, c in
            GoogleNotificationBuilder.PushBody(notification: rtdn(c), messageID: "1369693469\(i)").text
        }
        let decoded = kinds.map { rtdn($0).text }

        let mixed =
            [
                AppStoreEventBuilder.webhookBody(signedPayload: smallRefund), "", smallCharge, v1.text, page.text,
                pushes[2], decoded[0], smallRefundHistory.text,
            ].joined(separator: "\r\n") + "\r\n"
        let mixedTypes = [
            "REFUND", "ONE_TIME_CHARGE", "voided", "voided", "voided", "voided", "rtdn-revoked", "rtdn-voided",
            "refund-history", "refund-history",
        ]
        var gz: [UInt8] = []
        let encoder = try #require(GzipEncoder())
        encoder.append(Array(mixed.utf8), to: &gz)
        encoder.finish(to: &gz)

        let pretty = """
            {
              "pageInfo": {"totalResults": 2, "resultPerPage": 2, "startIndex": 0},
              "voidedPurchases": [
                \(v1.text),
                \(v3.text)
              ]
            }

            """
        let prettyHistory = """
            {
              "notificationHistory": [
                {"signedPayload": "\(smallRefund)",
                 "sendAttempts": [{"attemptDate": \(refunded.millis), "sendAttemptResult": "SUCCESS"}]},
                {"signedPayload": "\(smallTest)", "sendAttempts": []}
              ],
              "hasMore": true,
              "paginationToken": "page-2"
            }
            """
        let csv =
            "id,received_at,payload\n"
            + "1,2024-03-04T12:00:00Z,\(smallRefund)\n"
            + "2,2024-03-04T12:00:01Z,\(csvField(v1.text))\n"
            + "3,2024-03-04 12:00:02,\(csvField(pushes[0]))\n"
            + "4,1709553603,\(csvField(AppStoreEventBuilder.webhookBody(signedPayload: smallReversed)))\n"
        let tsv =
            "id\treceived_at\tbody\n"
            + "1\t2024-03-04T12:00:00Z\t\(smallTest)\n"
            + "2\t2024-03-04T12:00:01Z\t\(decoded[4])\n"
            + "3\t2024-03-04T12:00:02Z\t\(v3.text)\n"
        let xml = """
            <?xml version="1.0"?>
            <mysqldump xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <database name="shop">
            <table_data name="store_events">
            \t<row>
            \t\t<field name="id">1</field>
            \t\t<field name="received_at">2024-03-04 12:00:00</field>
            \t\t<field name="signed_payload">\(smallRefund)</field>
            \t</row>
            \t<row>
            \t\t<field name="id">2</field>
            \t\t<field name="received_at" xsi:nil="true" />
            \t\t<field name="signed_payload">\(xmlText(pushes[2]))</field>
            \t</row>
            \t<row>
            \t\t<field name="id">3</field>
            \t\t<field name="signed_payload">\(xmlText(v2.text))</field>
            \t</row>
            </table_data>
            </database>
            </mysqldump>

            """
        let rows =
            [
                "{\"id\":1,\"received_at\":\"2024-03-04T12:00:00Z\",\"body\":\"\(smallRefund)\"}",
                "{\"id\":2,\"received_at\":{\"$date\":\"2024-03-04T12:00:01Z\"},\"notification\":\(v1.text)}",
                "{\"id\":3,\"payload\":\(JSONValue.string(decoded[2]).jsonText)}",
                "{\"id\":4,\"signed_payload\":\(JSONValue.string(AppStoreEventBuilder.webhookBody(signedPayload: smallTest)).jsonText)}",
            ].joined(separator: "\n") + "\n"

        var seeds = [
            Seed(
                "apple-webhook-signed.jsonl", AppStoreEventBuilder.webhookBody(signedPayload: refund) + "\n", .lines,
                ["REFUND"]),
            Seed(
                "apple-history-page-signed.jsonl",
                AppStoreEventBuilder.NotificationHistoryPage(entries: [historyEntry]).text + "\n", .lines, ["REVOKE"]),
            Seed("apple-refund-history-signed.jsonl", refundHistory.text + "\n", .lines, ["refund-history"]),
            Seed(
                "small-apple-webhook.jsonl", AppStoreEventBuilder.webhookBody(signedPayload: smallRefund) + "\n",
                .lines, ["REFUND"]),
            Seed(
                "small-apple-jws-lines.jsonl", [smallReversed, smallCharge, smallTest].joined(separator: "\n"), .lines,
                ["REFUND_REVERSED", "ONE_TIME_CHARGE", "TEST"]),
            Seed(
                "small-apple-consumption-request.jsonl",
                AppStoreEventBuilder.webhookBody(signedPayload: smallRequest) + "\n",
                .lines, ["CONSUMPTION_REQUEST"]),
            Seed("small-apple-jws-quoted.jsonl", JSONValue.string(smallRefund).jsonText + "\n", .lines, ["REFUND"]),
            Seed("small-apple-history-page.jsonl", smallHistory.text + "\n", .lines, ["REFUND"]),
            Seed("apple-history-page-pretty.json", prettyHistory, .document, ["REFUND", "TEST"]),
            Seed(
                "small-apple-refund-history.jsonl", smallRefundHistory.text + "\n", .lines,
                ["refund-history", "refund-history"]),
            Seed(
                "small-google-voided-lines.jsonl", [v1, v2, v3].map(\.text).joined(separator: "\n") + "\n", .lines,
                ["voided", "voided", "voided"]),
            Seed("small-google-voided-page.jsonl", page.text + "\n", .lines, ["voided", "voided", "voided"]),
            Seed("small-google-voided-page.json", pretty, .document, ["voided", "voided"]),
            Seed("small-google-rtdn-push.jsonl", pushes.joined(separator: "\n") + "\n", .lines, kindTypes),
            Seed("small-google-rtdn-decoded.jsonl", decoded.joined(separator: "\n") + "\n", .lines, kindTypes),
            Seed("small-dump.csv", csv, .dump(.csv), ["REFUND", "voided", "rtdn-voided", "REFUND_REVERSED"]),
            Seed("small-dump.tsv", tsv, .dump(.tsv), ["TEST", "rtdn-one-time-product", "voided"]),
            Seed("small-dump.xml", xml, .dump(.xml), ["REFUND", "rtdn-revoked", "voided"]),
            Seed("small-logged-rows.jsonl", rows, .lines, ["REFUND", "voided", "rtdn-revoked", "TEST"]),
            Seed("small-mixed-crlf.jsonl", mixed, .lines, mixedTypes),
        ]
        var zipped = Seed("small-mixed.jsonl.gz", "", .lines, mixedTypes)
        zipped.bytes = gz
        seeds.append(zipped)
        return seeds
    }

    @Test("every seed reads as the events it was written with, none a problem, in the layout it shows")
    func seedsRead() throws {
        let seeds = try Self.seeds()
        if ProcessInfo.processInfo.environment["IAPSCREEN_WRITE_FUZZ_SEEDS"] == "1" {
            try? FileManager.default.removeItem(atPath: Self.directory)
            try FileManager.default.createDirectory(atPath: Self.directory, withIntermediateDirectories: true)
            for s in seeds { try Data(s.bytes).write(to: URL(fileURLWithPath: Self.directory + "/" + s.name)) }
        }
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.directory).sorted()
        #expect(
            committed == seeds.map(\.name).sorted(),
            "Fuzz/seeds/events/ is stale: IAPSCREEN_WRITE_FUZZ_SEEDS=1 writes it again")
        for s in seeds {
            // The committed file, as the harness reads it: no extension, the layout sniffed.
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + s.name)))
            let limits = s.name.hasPrefix("small-") ? Limits.small : Limits.standard
            let file = try StoreEventFile(.bytes(bytes, name: "events"), limits: limits, buffers: .small)
            var types: [String] = []
            var problems: [String] = []
            while let parsed = try file.next() {
                types += parsed.events.map(\.type)
                problems += parsed.problems.map(\.description)
            }
            #expect(file.layout == s.layout, "\(s.name)")
            #expect(problems == [], "\(s.name)")
            #expect(types == s.types, "\(s.name)")
            #expect(bytes.count <= 16 << 10, "\(s.name) is \(bytes.count) bytes: longer than the fuzzer's inputs")
        }
    }
}
