import Foundation
import Ledger
import Testing

@testable import DeskPages

/// A plausible night on the desk, to look at: `DESK_PAGES_OUT=/tmp/desk-pages swift test
/// --filter SamplePages` writes each page there with desk.css and desk.js beside it.
enum SamplePages {
    static let rules = [
        ["replayed-transaction"], ["revoked", "refund-abuse"], ["item-id-mismatch"], ["sandbox-in-production"],
        ["expired-validity"], ["bundle-id-mismatch", "receipt-unsigned"], ["price-mismatch"], ["missing-receipt"],
    ]

    static var orders: [QueueOrder] {
        (0..<18).map { i in
            let severity = max(0, 4 - i / 4)
            let claimed: String? = i % 5 == 1 ? (i % 2 == 0 ? "ann" : "ben") : nil
            let verdict: String? = i % 7 == 6 ? (i % 2 == 0 ? "fraud" : "legit") : nil
            return QueueOrder(
                flagged: FlaggedOrderSummary(
                    orderID: "ORD-10000\(14 + i * 7)", userID: "user-\(12_800 + i * 37)",
                    platform: i % 3 == 0 ? "android" : "ios",
                    productID: i % 4 == 0 ? "com.example.game.gems1200" : "com.example.game.starter_pack",
                    amount: ["4.99", "19.99", "99.99", "1.99"][i % 4], currency: i % 5 == 3 ? "JPY" : "USD",
                    createdAt: "2024-02-2\(i % 9)T1\(i % 10):2\(i % 6):11Z", severity: severity,
                    rules: rules[i % rules.count],
                    firstFlaggedAt: "2024-02-29T02:0\(i % 10):00Z", lastFlaggedAt: "2024-03-01T02:00:00Z"),
                claimedBy: claimed, claimedUntil: claimed == nil ? nil : DeskSamples.now + Int64(5 + i) * 60_000,
                verdict: verdict, verdictBy: verdict == nil ? nil : "ben")
        }
    }

    static let findings = [
        #"{"order_id":"ORD-1000014","user_id":"user-12891","rule":"replayed-transaction","severity":"critical","message":"the same store transaction 100000000004276 was credited to ORD-1000002 on 2024-02-27T09:12:44Z","evidence":{"expected":"a transaction no other order was credited for","actual":"100000000004276","original_order_id":"ORD-1000002","original_user_id":"user-11020","original_created_at":"2024-02-27T09:12:44Z","receipt_excerpt":"MIITtgYJKoZIhvcNAQcCoIITpzCCE6MCAQExCzAJBgUrDgMCGgUAMIIDVwYJKoZIhvcNAQcBoIIDSASCA0QxggNAMAoCAQgCAQEEAhYAMAoCARQCAQEEAgwAMAsCAQECAQEEAwIBADALAgEDAgEBBAMMATE=","devices":[{"id":"a1b2c3d4-e5f6-7890-abcd-ef1234567890","seen":"2024-02-27"},{"id":"a1b2c3d4-e5f6-7890-abcd-ef1234567890","seen":"2024-03-01"}]},"exempted":null,"review":null}"#,
        #"{"order_id":"ORD-1000014","user_id":"user-12891","rule":"revoked","severity":"high","message":"the store refunded or revoked transaction 100000000004276 on 2024-03-01T01:26:11Z","evidence":{"expected":"no cancellation","actual":"2024-03-01T01:26:11Z","transaction_id":"100000000004276","file":"orders.jsonl","line":1841},"exempted":null,"review":null}"#,
        #"{"order_id":"ORD-1000014","user_id":"user-12891","rule":"item-id-mismatch","severity":"medium","message":"expected product com.example.game.gems1200, receipt has com.example.game.gems100, com.example.game.legacy.theme6","evidence":{"expected":"com.example.game.gems1200","actual":"com.example.game.gems100, com.example.game.legacy.theme6"},"exempted":null,"review":null}"#,
    ]

    static var dossier: OrderDossier {
        var order = orders[0]
        order.claimedBy = "ann"
        order.claimedUntil = DeskSamples.now + 24 * 60_000
        order.flagged.rules = ["item-id-mismatch", "replayed-transaction", "revoked"]
        return OrderDossier(
            order: order, findings: findings,
            receipt:
                #"[["bundle id","com.example.game"],["environment","Production"],["product","com.example.game.gems100"],["transaction","100000000004276"],["original transaction","100000000004276"],["purchase date","2024-02-27T09:12:44Z"],["signed by","Apple Worldwide Developer Relations Certification Authority G5"]]"#,
            history: [
                (run: 11, at: "2024-02-29T02:00:00Z", rules: ["replayed-transaction"]),
                (run: 12, at: "2024-03-01T02:00:00Z", rules: ["item-id-mismatch", "replayed-transaction", "revoked"]),
            ],
            transactions: [
                TransactionTaker(
                    key: "apple:100000000004276", takenBy: "ORD-1000002", takenAt: "2024-02-27T09:12:44Z",
                    alsoCreditedTo: ["ORD-1000088", "ORD-1000131"])
            ],
            storeEvents: [
                (type: "REFUND", at: "2024-03-01T01:26:11Z", reason: "customer requested refund: accidental purchase")
            ],
            user: UserFacts(orders: ["ORD-1000014", "ORD-1000002", "ORD-1000088"], refunds: 1, consent: true),
            verdict: DeskVerdict(
                verdict: "fraud", by: "ben", at: "2024-03-01T09:40:02Z", note: "replay of ORD-1000002"),
            notes: [
                DeskNote(
                    by: "ben", at: "2024-03-01T09:31:15Z", text: "Same device as ORD-1000002.\nAsked the player team."),
                DeskNote(by: "ann", at: "2024-03-01T10:52:40Z", text: "Player team: account created the same day."),
            ],
            version: 9)
    }

    static var audit: [AuditEntry] {
        [
            AuditEntry(at: "2024-03-01T09:02:11Z", user: "ben", action: .login),
            AuditEntry(
                at: "2024-03-01T09:05:40Z", user: "ben", action: .claim, orderID: "ORD-1000014",
                detail: "until 2024-03-01T09:35:40Z"),
            AuditEntry(
                at: "2024-03-01T09:31:15Z", user: "ben", action: .note, orderID: "ORD-1000014",
                detail: "Same device as ORD-1000002."),
            AuditEntry(
                at: "2024-03-01T09:40:02Z", user: "ben", action: .verdict, orderID: "ORD-1000014",
                detail: "fraud (was none)"),
            AuditEntry(at: "2024-03-01T10:01:00Z", user: "mallory", action: .loginFailed),
            AuditEntry(at: "2024-03-01T10:30:00Z", user: "lea", action: .userAdd, detail: "carl (reviewer)"),
        ]
    }

    static var pages: [(String, String)] {
        let page = QueuePage(orders: orders, total: 214, next: orders.last?.place)
        return [
            ("login", DeskPages.login(csrf: "t", username: "ann", error: "Wrong user name or password.")),
            (
                "queue",
                DeskPages.queue(
                    page, filter: QueueFilter(status: .all), context: DeskSamples.context(.lead), message: nil)
            ),
            (
                "queue-viewer",
                DeskPages.queue(page, filter: QueueFilter(), context: DeskSamples.context(.viewer), message: nil)
            ),
            ("order", DeskPages.order(dossier, context: DeskSamples.context(.reviewer), message: nil)),
            (
                "order-409",
                DeskPages.order(
                    dossier, context: DeskSamples.context(.reviewer, user: "carl"),
                    message: "claimed by ann until 2024-03-01T11:24:00Z")
            ),
            (
                "order-hostile",
                DeskPages.order(
                    DeskSamples.hostileDossier(), context: DeskSamples.context(.lead), message: DeskSamples.evil)
            ),
            (
                "queue-hostile",
                DeskPages.queue(
                    QueuePage(orders: [DeskSamples.hostileOrder()], total: 1, next: nil), filter: QueueFilter(),
                    context: DeskSamples.context(.lead), message: nil)
            ),
            ("audit", DeskPages.audit(audit, since: "2024-03-01T00:00:00Z", context: DeskSamples.context(.lead))),
            (
                "error",
                DeskPages.error(
                    status: 404, message: "No run flagged order ORD-9.", context: DeskSamples.context(.viewer))
            ),
        ]
    }
}

@Suite("Sample pages")
struct SamplePagesTests {
    @Test("each sample page is inert and well formed; written out when DESK_PAGES_OUT is set")
    func write() throws {
        for (_, html) in SamplePages.pages { PageChecks.inert(html) }
        guard let out = ProcessInfo.processInfo.environment["DESK_PAGES_OUT"] else { return }
        try FileManager.default.createDirectory(atPath: out + "/assets", withIntermediateDirectories: true)
        for (name, html) in SamplePages.pages {
            // The pages link /assets/…: beside the files, relative links stand in for the server.
            let local = html.replacingOccurrences(of: "\"/assets/", with: "\"assets/")
            try Data(local.utf8).write(to: URL(fileURLWithPath: out + "/" + name + ".html"))
        }
        let files = try #require(DeskAssets.directory().flatMap(DeskAssets.read(from:)))
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: out + "/assets/" + name)) }
    }
}
