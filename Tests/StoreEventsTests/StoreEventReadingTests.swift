import Decompression
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import StoreEvents
import Testing

/// Signed App Store notifications from a test PKI made once for the suite.
enum EventWorld {
    static let pki = Result { try TestPKI() }
    static let bundle = "com.example.game"
    static let bought = Timestamp(clampingMillis: 1_709_294_400_000)  // 2024-03-01T12:00:00Z
    static let refunded = Timestamp(clampingMillis: 1_709_553_600_000)  // 2024-03-04T12:00:00Z

    static func notification(
        _ type: String, uuid: String, txn: String = "2000000000000101",
        revoked: Bool = true
    ) throws -> String {
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "gems_550",
            type: "Consumable", purchaseDate: bought, signedDate: bought)
        if revoked {
            tx.revocationDate = refunded
            tx.revocationReason = 1
        }
        return try JWSBuilder.notification(
            JWSBuilder.Notification(
                notificationType: type, notificationUUID: uuid, bundleID: bundle, signedDate: refunded,
                transaction: tx),
            with: try pki.get().jwsSigner)
    }

    static func transaction(_ txn: String, revoked: Bool) throws -> String {
        var tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "gems_550",
            type: "Consumable", purchaseDate: bought, signedDate: refunded)
        if revoked {
            tx.revocationDate = refunded
            tx.revocationReason = 0
        }
        return try JWSBuilder.transaction(tx, with: try pki.get().jwsSigner)
    }

    /// Every event and problem of a file given as bytes.
    static func read(_ text: String, name: String = "events.jsonl") throws -> (
        events: [StoreEvent], problems: [UnreadableRecord], layout: StoreEventFile.Layout
    ) {
        try read(Array(text.utf8), name: name)
    }

    static func read(_ bytes: [UInt8], name: String) throws -> (
        events: [StoreEvent], problems: [UnreadableRecord], layout: StoreEventFile.Layout
    ) {
        let file = try StoreEventFile(.bytes(bytes, name: name))
        var events: [StoreEvent] = []
        var problems: [UnreadableRecord] = []
        while let parsed = try file.next() {
            events += parsed.events
            problems += parsed.problems
        }
        return (events, problems, file.layout)
    }
}

@Suite("Reading store events")
struct StoreEventReadingTests {
    @Test("an App Store refund notification reads the same as a webhook body, a JWS alone and a history page entry")
    func appleNotification() throws {
        let jws = try EventWorld.notification("REFUND", uuid: "7e3a9b1c-0000-4000-8000-000000000001")
        let page = """
            {
              "notificationHistory": [
                {"signedPayload": "\(jws)", "sendAttemptResults": [{"attemptDate": 1709553600000, "sendAttemptResult": "SUCCESS"}]}
              ],
              "hasMore": false
            }
            """
        let lines = try EventWorld.read("{\"signedPayload\":\"\(jws)\"}\n\n\(jws)\n")
        let document = try EventWorld.read(page, name: "history.json")
        #expect(lines.layout == .lines && document.layout == .document)
        #expect(lines.problems.isEmpty && document.problems.isEmpty)
        let all = lines.events + document.events
        #expect(all.count == 3)
        #expect(Set(all.map(\.identity)).count == 1, "one notification however it was logged")
        let e = try #require(all.first)
        #expect(e.store == .apple && e.type == "REFUND" && e.meaning == .refund)
        #expect(e.transactionID == "2000000000000101" && e.productID == "gems_550" && e.appID == EventWorld.bundle)
        #expect(e.at == EventWorld.refunded && e.reason == "app-issue")
        #expect(e.signed?.jwsType == .notification, "the signed payload is kept for the signature check")
        #expect(lines.events.map { $0.location.description } == ["events.jsonl:1", "events.jsonl:3"])
        let reversal = try EventWorld.read(
            try EventWorld.notification("REFUND_REVERSED", uuid: "u-2", revoked: false) + "\n")
        #expect(reversal.events.first?.meaning == .reversal)
        let charge = try EventWorld.read(
            try EventWorld.notification("ONE_TIME_CHARGE", uuid: "u-3", revoked: false) + "\n")
        #expect(charge.events.first?.meaning == .charge)
        let test = try EventWorld.read(try EventWorld.notification("TEST", uuid: "u-4", revoked: false) + "\n")
        #expect(test.events.first?.meaning == .other && test.events.first?.type == "TEST")
    }

    @Test(
        "a refund-history page: each transaction with a revocationDate is a refund, identified by transaction and date")
    func refundHistory() throws {
        let page =
            "{\"signedTransactions\": [\"\(try EventWorld.transaction("301", revoked: true))\", "
            + "\"\(try EventWorld.transaction("302", revoked: false))\", 5], \"revision\": \"r1\", \"hasMore\": false}\n"
        let r = try EventWorld.read(page)
        #expect(r.events.map(\.transactionID) == ["301", "302"])
        #expect(r.events.map(\.meaning) == [.refund, .other])
        #expect(r.events.first?.type == "refund-history" && r.events.first?.reason == "other")
        #expect(r.events.first?.identity == "apple:r:301:\(EventWorld.refunded.millis)")
        #expect(r.problems.map(\.reason) == ["signedTransactions[2]: an entry that is a number, not a JWS"])
    }

    @Test(
        "Google voided purchases, as a page or one per line, int64 as strings or numbers; reasons and sources in words")
    func googleVoided() throws {
        let one =
            #"{"kind":"androidpublisher#voidedPurchase","purchaseToken":"tok-1","orderId":"GPA.1111-2222-3333-44444","purchaseTimeMillis":"1709294400000","voidedTimeMillis":"1709553600000","voidedSource":0,"voidedReason":6}"#
        let page =
            #"{"pageInfo":{"totalResults":2},"voidedPurchases":[{"purchaseToken":"tok-2","voidedTimeMillis":1709553600001,"voidedReason":7,"voidedSource":2},{"purchaseToken":"tok-3"}]}"#
        let r = try EventWorld.read(one + "\n" + page + "\n" + one + "\n")
        #expect(r.events.map(\.type) == ["voided", "voided", "voided"])
        #expect(r.events.map(\.transactionID) == ["GPA.1111-2222-3333-44444", nil, "GPA.1111-2222-3333-44444"])
        #expect(r.events[0].reason == "friendly-fraud" && r.events[0].source == "user")
        #expect(
            r.events[1].reason == "chargeback" && r.events[1].source == "google" && r.events[1].purchaseToken == "tok-2"
        )
        #expect(r.events[0].identity == r.events[2].identity && r.events[0].identity != r.events[1].identity)
        #expect(r.events[0].at == EventWorld.refunded)
        #expect(r.problems.map(\.reason) == ["voidedPurchases[1]: a voided purchase without voidedTimeMillis"])
        #expect(r.problems.first?.location.description == "events.jsonl:2")
    }

    @Test(
        "Real-time developer notifications: a Pub/Sub push decodes its base64 data; revoked subscriptions and voids are refunds"
    )
    func rtdn() throws {
        let voided =
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709553600000","voidedPurchaseNotification":{"purchaseToken":"tok-9","orderId":"GPA.9","productType":2,"refundType":1}}"#
        let push =
            "{\"message\":{\"attributes\":{},\"data\":\"\(Base64.encode(Array(voided.utf8)))\",\"messageId\":\"136969346945\",\"publishTime\":\"2024-03-04T12:00:01Z\"},\"subscription\":\"projects/p/subscriptions/s\"}"
        let revoked =
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709553600000","subscriptionNotification":{"version":"1.0","notificationType":12,"purchaseToken":"tok-s","subscriptionId":"vip_month"}}"#
        let renewed =
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709553600000","subscriptionNotification":{"version":"1.0","notificationType":2,"purchaseToken":"tok-s","subscriptionId":"vip_month"}}"#
        let test =
            #"{"version":"1.0","packageName":"com.example.game","eventTimeMillis":"1709553600000","testNotification":{"version":"1.0"}}"#
        let r = try EventWorld.read([push, push, revoked, revoked, renewed, test].joined(separator: "\n"))
        #expect(r.problems.isEmpty)
        #expect(
            r.events.map(\.type) == [
                "rtdn-voided", "rtdn-voided", "rtdn-revoked", "rtdn-revoked", "rtdn-subscription", "rtdn-test",
            ])
        #expect(r.events.map(\.meaning) == [.refund, .refund, .refund, .refund, .other, .other])
        #expect(r.events[0].identity == "google:m:136969346945" && r.events[0].identity == r.events[1].identity)
        #expect(r.events[2].identity == r.events[3].identity && r.events[2].identity != r.events[4].identity)
        #expect(
            r.events[0].transactionID == "GPA.9" && r.events[0].purchaseToken == "tok-9"
                && r.events[0].appID == "com.example.game")
        #expect(r.events[2].productID == "vip_month" && r.events[2].at == EventWorld.refunded)
    }

    @Test("dumps whose rows carry the event in a payload column: CSV, XML, JSON Lines rows, gzipped too")
    func dumps() throws {
        let jws = try EventWorld.notification("REVOKE", uuid: "u-dump")
        let voided = #"{"purchaseToken":"tok-1","orderId":"GPA.1","voidedTimeMillis":"1709553600000"}"#
        let csv =
            "id,received_at,payload\n1,2024-03-04T12:00:00Z,\(jws)\n2,2024-03-04T12:00:00Z,\"\(voided.replacingOccurrences(of: "\"", with: "\"\""))\"\n3,2024-03-04,\n"
        let xml = """
            <?xml version="1.0"?>
            <mysqldump><database name="shop"><table_data name="store_events">
            <row><field name="id">1</field><field name="signed_payload">\(jws)</field></row>
            <row><field name="id">2</field><field name="other">x</field></row>
            </table_data></database></mysqldump>
            """
        let rows = "{\"id\": 1, \"body\": \"\(jws)\"}\n{\"id\": 2, \"notification\": \(voided)}\n"
        let fromCSV = try EventWorld.read(csv, name: "events.csv")
        #expect(fromCSV.layout == .dump(.csv))
        #expect(fromCSV.events.map(\.type) == ["REVOKE", "voided"])
        #expect(fromCSV.problems.map { "\($0)" } == ["events.csv:4: the payload column holds no event"])
        let fromXML = try EventWorld.read(xml, name: "events.xml.gz")
        #expect(fromXML.events.map(\.type) == ["REVOKE"])
        #expect(fromXML.problems.count == 1 && fromXML.problems[0].reason.hasPrefix("no column holds the event"))
        var gz: [UInt8] = []
        let encoder = try #require(GzipEncoder())
        encoder.append(Array(rows.utf8), to: &gz)
        encoder.finish(to: &gz)
        let fromRows = try EventWorld.read(gz, name: "events.log.gz")
        #expect(fromRows.layout == .lines && fromRows.problems.isEmpty)
        #expect(fromRows.events.map(\.type) == ["REVOKE", "voided"])
        // A CSV without an extension is told by its first line.
        #expect(try EventWorld.read(csv, name: "events").layout == .dump(.csv))
    }

    @Test(
        "hostile lines are problems with their line, never a crash: truncated JWS, base64 of no JSON, wrong types, huge lines"
    )
    func hostile() throws {
        let jws = try EventWorld.notification("REFUND", uuid: "u-h")
        let truncated = String(jws.dropLast(40))
        let notJSON = "{\"message\":{\"data\":\"\(Base64.encode(Array("not json".utf8)))\",\"messageId\":\"1\"}}"
        var limits = Limits.small
        limits.maxRecordBytes = 4096
        let lines = [
            truncated, notJSON, "{\"signedPayload\": 5}", "{\"voidedPurchases\": {\"a\": 1}}", "[1, 2]",
            "{\"hello\": \"world\"}", "just text", String(repeating: "x", count: 5000),
            "{\"packageName\":\"p\",\"eventTimeMillis\":\"soon\",\"testNotification\":{}}",
            "{\"voidedPurchases\":[{\"voidedPurchases\":[]}]}",
        ]
        let file = try StoreEventFile(
            .bytes(Array(lines.joined(separator: "\n").utf8), name: "bad.jsonl"), limits: limits)
        var problems: [UnreadableRecord] = []
        var events = 0
        while let p = try file.next() {
            problems += p.problems
            events += p.events.count
        }
        #expect(events == 0)
        #expect(problems.map(\.location.description) == (1...10).map { "bad.jsonl:\($0)" })
        let reasons = problems.map(\.reason)
        #expect(reasons[1].hasPrefix("message.data decodes to no JSON"))
        #expect(reasons[2] == "signedPayload is a number, not a JWS")
        #expect(reasons[3] == "voidedPurchases is an object, not an array")
        #expect(reasons[6] == "neither JSON nor a JWS")
        #expect(reasons[7] == "line is longer than 4096 bytes")
        #expect(reasons[8].hasPrefix("eventTimeMillis is not epoch milliseconds"))
        #expect(reasons[9] == "voidedPurchases[0]: a voided purchase with neither orderId nor purchaseToken")
    }
}

@Suite("Telling a store-event file's layout")
struct StoreEventLayoutTests {
    @Test(
        "a file named JSON Lines whose first line is no event reads on as lines: that line is one problem, not a header"
    )
    func badFirstLineOfJSONLines() throws {
        let jws = try EventWorld.notification("REFUND", uuid: "u-first")
        let voided = #"{"purchaseToken":"tok-1","orderId":"GPA.1","voidedTimeMillis":"1709553600000"}"#
        for first in [String(jws.prefix(200)), "5", "<html>", "id,payload"] {
            for name in ["events.jsonl", "events.ndjson.gz", "events.json"] {
                let r = try EventWorld.read(first + "\n" + jws + "\n" + voided + "\n", name: name)
                #expect(r.layout == .lines, "\(first) in \(name)")
                #expect(r.events.map(\.type) == ["REFUND", "voided"], "\(first) in \(name)")
                #expect(r.problems.map(\.location.description) == ["\(name):1"], "\(first) in \(name)")
            }
        }
        // Without such a name, the first line still tells a dump.
        #expect(try EventWorld.read("id,payload\n1,\(jws)\n", name: "events").layout == .dump(.csv))
        #expect(
            try EventWorld.read("<?xml version=\"1.0\"?>\n<mysqldump/>\n", name: "events.log").layout == .dump(.xml))
    }

    @Test(
        "a first line that only starts a document does not swallow the log: unless the whole file is one JSON value, it reads as lines"
    )
    func firstLineStartsADocument() throws {
        let jws = try EventWorld.notification("REFUND", uuid: "u-doc")
        let voided = #"{"purchaseToken":"tok-1","orderId":"GPA.1","voidedTimeMillis":"1709553600000"}"#
        for first in [#"{"a":["#, "{", "[", #"{"signedPayload":"#, #"{"voidedPurchases":[{"orderId":"x"},"#] {
            for name in ["events.jsonl", "events"] {
                let r = try EventWorld.read(first + "\n" + jws + "\n" + voided + "\n", name: name)
                #expect(r.layout == .lines, "\(first) in \(name)")
                #expect(r.events.map(\.type) == ["REFUND", "voided"], "\(first) in \(name)")
                #expect(r.problems.map(\.location.description) == ["\(name):1"], "\(first) in \(name)")
            }
        }
        // A page written pretty is still one document; cut short, each of its lines is a problem.
        let page = "{\n  \"voidedPurchases\": [\n    \(voided),\n    \(voided)\n  ]\n}\n"
        let whole = try EventWorld.read(page, name: "page.json")
        #expect(whole.layout == .document && whole.events.count == 2 && whole.problems.isEmpty)
        let cut = try EventWorld.read(
            "{\n  \"voidedPurchases\": [\n    \(voided),\n    \(voided),\n", name: "page.json")
        #expect(cut.layout == .lines && cut.events.isEmpty)
        #expect(cut.problems.map(\.location.description) == (1...4).map { "page.json:\($0)" })
    }
}
