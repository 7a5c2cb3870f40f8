import Consumption
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Screening
import Testing

@testable import Night

@Suite("What a night knows of each refund request's transaction")
struct RequestFactsTests {
    static let bundle = StoreEventFixtures.bundle

    static func t(_ s: String) -> Timestamp { StoreEventFixtures.t(s) }

    /// An App Store order row with its signed transaction, and the columns §13 adds.
    static func order(
        _ id: String, user: String, txn: String, at: String, status: String = "credited", consumed: String? = nil,
        consent: String? = nil, pki: TestPKI
    ) throws -> JSONObject {
        let tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: bundle, productID: "com.x.gems", type: "Consumable",
            purchaseDate: t("2024-03-01T09:00:00Z"), signedDate: t("2024-03-01T09:00:00Z"))
        var row = StoreEventFixtures.row(
            id, user: user, platform: "ios", txn: txn, amount: "0.99", currency: "USD", at: at, status: status,
            receipt: try JWSBuilder.transaction(tx, with: pki.jwsSigner))
        if let consumed { row.members.append(("consumed", .string(consumed))) }
        if let consent { row.members.append(("consent", .string(consent))) }
        return row
    }

    static func request(uuid: String, txn: String, token: String? = nil, pki: TestPKI) throws -> String {
        try StoreEventFixtures.consumptionRequest(uuid: uuid, txn: txn, token: token, signer: pki)
    }

    /// A Rules directory trusting `pki`, with the gems of com.x.gems.
    static func rules(_ scratch: Scratch, _ pki: TestPKI) throws -> URL {
        let rulesDir = URL(fileURLWithPath: scratch.file("Rules"))
        try pki.writeTrustDirectory(into: rulesDir, googlePackageNames: [])
        try scratch.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency,sample_content\ngems,ios,com.x.gems,consumable,0.99,USD,yes\n"
        )
        return rulesDir
    }

    /// The refund requests of the log `requests` gives, with what a night of `rows` knows of them.
    static func answered(_ rows: [JSONObject], requests log: [String], _ scratch: Scratch, rules rulesDir: URL) throws
        -> [(request: ConsumptionRequest, facts: ConsumptionFacts)]
    {
        try scratch.write("orders.jsonl", rows.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")
        try scratch.write("events.jsonl", log.map { "{\"signedPayload\":\"\($0)\"}" }.joined(separator: "\n") + "\n")
        let rules = try NightRules(try RulesDirectory.load(rulesDir.path).get(), defaultProduction: true)
        let night = try Night(
            Night.Inputs(
                orders: [scratch.file("orders.jsonl")], receipts: [], storeEvents: [scratch.file("events.jsonl")],
                jobs: 2),
            rules: rules, ledger: nil)
        try night.load()
        return try night.refundRequests()
    }

    @Test("the taking order with its status and consumed, its user's latest consent; a lost order's user by token")
    func gather() throws {
        let scratch = try Scratch()
        let pki = try TestPKI()
        let rulesDir = try Self.rules(scratch, pki)
        let token = "5B0C3E9E-4A7F-4D55-9A8E-2F1F6A0C1D2E"
        let rows = [
            // A's user said no first, then yes on a later order: the latest wins.
            try Self.order("A", user: "u1", txn: "3001", at: "2024-03-02T10:00:00Z", consumed: "40%", pki: pki),
            try Self.order("A2", user: "u1", txn: "3009", at: "2024-03-01T10:00:00Z", consent: "no", pki: pki),
            try Self.order("A3", user: "u1", txn: "3010", at: "2024-03-03T10:00:00Z", consent: "yes", pki: pki),
            // A replay of A's transaction: A keeps it.
            try Self.order("R", user: "u9", txn: "3001", at: "2024-03-02T11:00:00Z", consent: "yes", pki: pki),
            // B's order was refunded: it took nothing.
            try Self.order("B", user: "u2", txn: "3002", at: "2024-03-02T10:00:00Z", status: "refunded", pki: pki),
            // The token's user has an order of another transaction tonight.
            try Self.order(
                "C", user: token.lowercased(), txn: "3011", at: "2024-03-02T10:00:00Z", consent: "no", pki: pki),
        ]
        let log = [
            try Self.request(uuid: "q-1", txn: "3001", pki: pki),
            try Self.request(uuid: "q-2", txn: "3002", pki: pki),
            try Self.request(uuid: "q-3", txn: "3003", token: token, pki: pki),
            try Self.request(uuid: "q-4", txn: "3004", pki: pki),
        ]
        let answered = try Self.answered(rows, requests: log, scratch, rules: rulesDir)
        #expect(answered.map(\.request.notificationUUID) == ["q-1", "q-2", "q-3", "q-4"])

        let a = answered[0].facts
        #expect(a.order?.orderID == "A")
        #expect(a.order?.status == .credited)
        #expect(a.order?.consumed?.milliunits == 40_000)
        #expect(a.order?.source == "tonight's dump")
        #expect(a.order?.sampleContent == true)
        #expect(a.order?.catalogType == .consumable)
        #expect(a.userID == "u1")
        #expect(a.consent == .yes)

        // A refunded order takes no transaction, but its row names it: the answer knows whose it was.
        let b = answered[1].facts
        #expect(b.order?.orderID == "B")
        #expect(b.order?.status == .refunded)
        #expect(b.userID == "u2")

        let c = answered[2].facts
        #expect(c.order == nil)
        #expect(c.userID == token.lowercased())
        #expect(c.consent == .no)

        let d = answered[3].facts
        #expect(d.order == nil)
        #expect(d.userID == nil)
        #expect(d.consent == nil)
    }

    @Test("a lost order whose row names no transaction is found by its receipt: the request knows its order and user")
    func lostOrderByReceipt() throws {
        let scratch = try Scratch()
        let pki = try TestPKI()
        let rulesDir = try Self.rules(scratch, pki)
        var lost = try Self.order("L", user: "u5", txn: "3005", at: "2024-03-02T10:00:00Z", status: "failed", pki: pki)
        lost.members.removeAll { $0.key == "transaction_id" }
        let rows = [
            lost, try Self.order("A", user: "u1", txn: "3001", at: "2024-03-02T10:00:00Z", consent: "yes", pki: pki),
        ]
        let answered = try Self.answered(
            rows, requests: [try Self.request(uuid: "q-5", txn: "3005", pki: pki)], scratch, rules: rulesDir)
        let facts = try #require(answered.first?.facts)
        #expect(facts.order?.orderID == "L")
        #expect(facts.order?.status == .failed)
        #expect(facts.userID == "u5")
    }
}
