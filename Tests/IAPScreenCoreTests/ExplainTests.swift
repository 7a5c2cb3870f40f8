import Foundation
import Testing

@Suite("explain: why an order was (not) flagged")
struct ExplainTests {
    static let root = ShippedRulesTests.root

    /// The orders of the shipped samples planted as `name` (samples/expected.csv); with
    /// `flagged`, only those expected flagged (a replay's original is planted clean).
    static func orders(_ name: String, flagged: Bool? = nil) throws -> [String] {
        let text = try String(contentsOfFile: root + "/samples/expected.csv", encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 4, cells[3] == name else { return nil }
            if let flagged, cells[1].isEmpty == flagged { return nil }
            return String(cells[0])
        }
    }

    static func order(_ name: String, flagged: Bool? = nil) throws -> String {
        guard let first = try orders(name, flagged: flagged).first else { throw CocoaError(.fileReadCorruptFile) }
        return first
    }

    static func explain(_ orderID: String, ledger: String = "none") throws -> ToolRun {
        try Tool.run([
            "explain", "--order", orderID, "--rules", root + "/samples/Rules",
            "--orders", root + "/samples/orders-appstore.csv.gz", root + "/samples/orders-storekit.xml.gz",
            root + "/samples/orders-play.jsonl.gz", "--receipts", root + "/samples/receipts-appstore.csv.gz",
            "--ledger", ledger,
        ])
    }

    /// The shipped samples screened into `s`/out, the night recorded in `ledger`.
    static func screenSamples(into s: Scratch, ledger: String) throws {
        let screen = try Tool.run([
            "screen", "--rules", Self.root + "/samples/Rules",
            "--orders", Self.root + "/samples/orders-appstore.csv.gz",
            Self.root + "/samples/orders-storekit.xml.gz", Self.root + "/samples/orders-play.jsonl.gz",
            "--receipts", Self.root + "/samples/receipts-appstore.csv.gz",
            "--out", s.file("out"), "--ledger", ledger, "--quiet",
        ])
        #expect(screen.status == 0, "\(screen.stderr)")
    }

    @Test("a replayed order names the order that took its transaction first, and the rule that fired")
    func replay() throws {
        let r = try Self.explain(try Self.order("replay", flagged: true))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("took first tonight: every candidate was already taken"))
        #expect(r.stdout.contains("fired   replayed-transaction"))
        #expect(r.stdout.contains("verdict: flagged, highest severity critical"))
        #expect(r.stdout.contains("passed  item-id-mismatch"))
    }

    @Test("a reviewer's sandbox receipt fires, is exempted, and the window that exempts it is named")
    func reviewer() throws {
        let r = try Self.explain(try Self.order("reviewer-sandbox"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("fired   sandbox-in-production"))
        #expect(r.stdout.contains("is a reviewer from"))
        #expect(r.stdout.contains("verdict: not flagged: every finding is exempted or reviewed legit"))
        #expect(r.stdout.contains("exempted: the user is a reviewer within their window"))
    }

    @Test("a clean renewal says it renews an original transaction and is not a replay")
    func renewal() throws {
        var renewalsExplained = 0
        for order in try Self.orders("renewal") {
            let r = try Self.explain(order)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("verdict: not flagged: no rule found anything."))
            #expect(r.stdout.contains("passed  replayed-transaction"))
            if r.stdout.contains("a renewal: transaction"), r.stdout.contains("is not a replay") {
                renewalsExplained += 1
            }
        }
        #expect(renewalsExplained > 0)
    }

    @Test("a forged verifyReceipt JSON shows the claim its signed receipt denies")
    func forged() throws {
        let r = try Self.explain(try Self.order("forged-json"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("fired   signature-invalid"))
        #expect(r.stdout.contains("in the JSON,"))
        #expect(r.stdout.contains("in the signed receipt"))
    }

    @Test("after a screened night the ledger's marks show; explain leaves the ledger as it was")
    func withLedger() throws {
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        let replay = try Self.order("replay", flagged: true)
        try Self.screenSamples(into: s, ledger: ledger)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.file("ledger.sqlite")))
        let r = try Self.explain(replay, ledger: ledger)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("seen: an earlier run on this ledger reported it"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.file("ledger.sqlite"))) == before)
    }

    @Test(
        "explain names a Google transaction by its order id (GPA.…) and a test purchase by its purchase token, never by the ledger's key"
    )
    func transactionsAsPeopleKnowThem() throws {
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        try Self.screenSamples(into: s, ledger: ledger)
        let google = try Self.explain(try Self.order("event-rtdn-subscription-revoked"), ledger: ledger)
        #expect(google.status == 0, "\(google.stderr)")
        #expect(google.stdout.contains("as the first to take transaction GPA."), "\(google.stdout)")

        // The samples' Google test purchase has no order id: only its token names it.
        let tests = try Self.orders("sandbox-order").map { try Self.explain($0, ledger: ledger) }
        let test = try #require(tests.first { $0.stdout.contains("platform android") })
        #expect(test.stdout.contains(", purchase token tok."), "\(test.stdout)")
        #expect(test.stdout.contains("as the first to take purchase token tok."), "\(test.stdout)")
        #expect(test.stdout.contains("no earlier order took purchase token tok."), "\(test.stdout)")
        for r in [google, test] {
            #expect(!r.stdout.contains("g:GPA") && !r.stdout.contains("gt:"), "the ledger's keys: \(r.stdout)")
            #expect(!r.stdout.contains("transaction tok."), "a token called a transaction: \(r.stdout)")
        }
    }

    @Test("an order that is not in the dumps is a clear error, and explain needs --order")
    func unknown() throws {
        let r = try Self.explain("ORD-NOT-THERE")
        #expect(r.status == 2)
        #expect(r.stderr.contains("order 'ORD-NOT-THERE' is not in the orders dumps"))
        // The orders dumps are named as such, the receipts dump under its own words.
        let orders = try #require(r.stderr.split(separator: "orders dumps (").last?.split(separator: ")").first)
        #expect(orders.contains("orders-play.jsonl.gz") && !orders.contains("receipts"), "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "; the receipts dump (\(Self.root)/samples/receipts-appstore.csv.gz) holds receipts, not orders"))
        let bare = try Tool.run(["explain", "--orders", Self.root + "/samples/orders-appstore.csv.gz"])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("--order is required"))
    }
}
