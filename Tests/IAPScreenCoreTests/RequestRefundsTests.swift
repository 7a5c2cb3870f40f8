import Foundation
import JSONText
import ReceiptBuilder
import Testing

/// A refund request's answer weighs the user's refunds, the ledger's and tonight's, whatever
/// the Rules ask (docs/consumption.md): no custom rule reads `user.refunds` here.
@Suite("Refund requests count the user's refunds with any Rules")
struct RequestRefundsTests {
    /// u1 bought four times on night one; night two's store events refund two of them.
    final class World {
        let scratch: Scratch
        let pki: TestPKI

        init() throws {
            scratch = try Scratch()
            pki = try TestPKI()
            _ = try RequestFactsTests.rules(scratch, pki)
            try scratch.write("Rules/apps.csv", "platform,app_id\nios,\(StoreEventFixtures.bundle)\n")
            try FileManager.default.copyItem(atPath: scratch.file("Rules"), toPath: scratch.file("Rules3"))
            try scratch.write("Rules3/consumption.rules", "consumption decline_after_refunds 3\n")
            try orders(
                "night1.jsonl",
                [
                    ("P1", "4001", "2024-03-01T10:00:00Z"), ("P2", "4002", "2024-03-01T11:00:00Z"),
                    ("P3", "4003", "2024-03-01T12:00:00Z"), ("P4", "4004", "2024-03-01T13:00:00Z"),
                ])
            try orders("night2.jsonl", [("Q1", "4101", "2024-03-02T10:00:00Z")], user: "u2")
            try log("refunds2.jsonl", [refund("n-1", txn: "4001"), refund("n-2", txn: "4002")])
            try log("request.jsonl", [request("q-1", txn: "4003")])
            // The same request with a refund the ledger holds already: still two.
            try log("request-and-old-refund.jsonl", [request("q-1", txn: "4003"), refund("n-1", txn: "4001")])
            // The same request, and tonight a third refund of u1's.
            try log("request-and-refund.jsonl", [request("q-1", txn: "4003"), refund("n-4", txn: "4004")])
        }

        private func orders(_ name: String, _ rows: [(String, String, String)], user: String = "u1") throws {
            let lines = try rows.map { id, txn, at in
                let tx = JWSBuilder.Transaction(
                    transactionID: txn, bundleID: StoreEventFixtures.bundle, productID: "com.x.gems",
                    type: "Consumable", purchaseDate: StoreEventFixtures.t("2024-03-01T09:00:00Z"),
                    signedDate: StoreEventFixtures.t("2024-03-01T09:00:00Z"))
                var row = StoreEventFixtures.row(
                    id, user: user, platform: "ios", txn: txn, amount: "0.99", currency: "USD", at: at,
                    status: "credited", receipt: try JWSBuilder.transaction(tx, with: pki.jwsSigner))
                row.members.append(("consumed", .string("10%")))
                row.members.append(("consent", .string("yes")))
                return JSONValue.object(row).jsonText
            }
            try scratch.write(name, lines.joined(separator: "\n") + "\n")
        }

        private func refund(_ uuid: String, txn: String) throws -> String {
            try StoreEventFixtures.notification(
                "REFUND", uuid: uuid, txn: txn, revoked: "2024-03-03T00:00:00Z", reason: 0,
                signedDate: "2024-03-03T00:00:00Z", signer: pki)
        }

        private func request(_ uuid: String, txn: String) throws -> String {
            try StoreEventFixtures.consumptionRequest(uuid: uuid, txn: txn, signer: pki)
        }

        private func log(_ name: String, _ payloads: [String]) throws {
            try scratch.write(name, payloads.map { "{\"signedPayload\":\"\($0)\"}" }.joined(separator: "\n") + "\n")
        }

        func screen(_ orders: String, events: String? = nil) throws {
            let r = try Tool.run(
                ["screen", "--rules", "Rules", "--orders", orders, "--ledger", "sqlite:ledger.sqlite", "--quiet"]
                    + ["--out", "out-" + orders] + (events.map { ["--store-events", $0] } ?? []),
                in: scratch.path)
            #expect(r.status == 0, "\(r.stderr)")
        }

        /// The answer to q-1: its refund preference (nil: none) and what it says of the refunds.
        func answer(rules: String, events: String) throws -> (preference: String?, why: [String]) {
            let out = "answers-\(rules)-\(events)"
            let r = try Tool.run(
                [
                    "consumption", "--rules", rules, "--store-events", events, "--ledger", "sqlite:ledger.sqlite",
                    "--now", "2024-03-04T10:00:00Z", "--out", out,
                ], in: scratch.path)
            #expect(r.status == 0, "\(r.stderr)")
            let line = try #require(try JSONParser.parse(try scratch.read(out + "/consumption.jsonl")).object)
            #expect(line["order_id"] == .string("P3"))
            return (
                line["body"]?.object?["refundPreference"]?.string,
                line["why"]?.array?.compactMap(\.string) ?? []
            )
        }
    }

    @Test(
        "two refunds in the ledger: DECLINE with the shipped consumption defaults; with decline_after_refunds 3 not (one of them read again tonight counts once), until a third refund tonight"
    )
    func declineAfterRefunds() throws {
        let w = try World()
        try w.screen("night1.jsonl")
        try w.screen("night2.jsonl", events: "refunds2.jsonl")

        let shipped = try w.answer(rules: "Rules", events: "request.jsonl")
        #expect(shipped.preference == "DECLINE", "\(shipped.why)")
        #expect(shipped.why.contains { $0.contains("2 refund") }, "\(shipped.why)")

        let three = try w.answer(rules: "Rules3", events: "request.jsonl")
        #expect(three.preference == nil, "\(three.why)")
        #expect(three.why.contains { $0.contains("2 refund") }, "\(three.why)")

        let again = try w.answer(rules: "Rules3", events: "request-and-old-refund.jsonl")
        #expect(again.preference == nil, "each refund counts once: \(again.why)")
        #expect(again.why.contains { $0.contains("2 refund") }, "\(again.why)")

        let third = try w.answer(rules: "Rules3", events: "request-and-refund.jsonl")
        #expect(third.preference == "DECLINE", "\(third.why)")
        #expect(third.why.contains { $0.contains("3 refund") }, "\(third.why)")
    }
}
