import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder

/// A night with refund requests of every kind (docs/consumption.md), for the commands that
/// answer them: orders of three users with `consumed` and `consent`, and a log of requests
/// for those orders' transactions, one for a transaction no order took (its account token
/// is u1's id), one logged twice, one past its deadline, one forged and one of another app.
/// Requests are signed 2024-03-04T08:00:00Z: `now` is within their 12 hours.
final class RefundRequestWorld {
    let scratch: Scratch
    let pki: TestPKI
    static let now = "2024-03-04T10:00:00Z"
    /// The account token of q-4: u1's id as Apple spells a UUID.
    static let token = "5B0C3E9E-4A7F-4D55-9A8E-2F1F6A0C1D2E"
    static let user1 = token.lowercased()

    init() throws {
        scratch = try Scratch()
        pki = try TestPKI()
        let rules = URL(fileURLWithPath: scratch.file("Rules"))
        try pki.writeTrustDirectory(into: rules, googlePackageNames: [])
        try scratch.write("Rules/apps.csv", "platform,app_id\nios,\(StoreEventFixtures.bundle)\n")
        try scratch.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency,sample_content\n"
                + "gems,ios,com.x.gems,consumable,0.99,USD,yes\n")
        let rows = [
            try order("A", user: Self.user1, txn: "3001", at: "2024-03-02T10:00:00Z", consumed: "40%", consent: "yes"),
            try order("B", user: "u2", txn: "3002", at: "2024-03-02T11:00:00Z", consumed: "0.1", consent: "no"),
            try order("C", user: "u3", txn: "3003", at: "2024-03-02T12:00:00Z", consumed: "100%", consent: "yes"),
        ]
        try scratch.write("orders.jsonl", rows.map { JSONValue.object($0).jsonText }.joined(separator: "\n") + "\n")
        // The same orders without the columns §13 adds: what the ledger knows then is all there is.
        try scratch.write(
            "orders-plain.jsonl",
            rows.map { r in
                JSONValue.object(JSONObject(r.members.filter { $0.0 != "consumed" && $0.0 != "consent" })).jsonText
            }.joined(separator: "\n") + "\n")
        let stranger = try TestPKI()
        let requests = [
            try request("q-1", txn: "3001"), try request("q-2", txn: "3002"), try request("q-1", txn: "3001"),
            try request("q-3", txn: "3003"), try request("q-4", txn: "3004", token: Self.token),
            try request("q-late", txn: "3001", signedDate: "2024-03-03T20:00:00Z"),
            try StoreEventFixtures.consumptionRequest(uuid: "q-forged", txn: "3001", signer: stranger),
            try StoreEventFixtures.consumptionRequest(
                uuid: "q-foreign", txn: "3001", bundle: "com.other.app", signer: pki),
        ]
        try scratch.write(
            "requests.jsonl", requests.map { "{\"signedPayload\":\"\($0)\"}" }.joined(separator: "\n") + "\n")
    }

    private func order(
        _ id: String, user: String, txn: String, at: String, consumed: String, consent: String
    ) throws -> JSONObject {
        let tx = JWSBuilder.Transaction(
            transactionID: txn, bundleID: StoreEventFixtures.bundle, productID: "com.x.gems", type: "Consumable",
            purchaseDate: StoreEventFixtures.t("2024-03-01T09:00:00Z"),
            signedDate: StoreEventFixtures.t("2024-03-01T09:00:00Z"))
        var row = StoreEventFixtures.row(
            id, user: user, platform: "ios", txn: txn, amount: "0.99", currency: "USD", at: at, status: "credited",
            receipt: try JWSBuilder.transaction(tx, with: pki.jwsSigner))
        row.members.append(("consumed", .string(consumed)))
        row.members.append(("consent", .string(consent)))
        return row
    }

    private func request(
        _ uuid: String, txn: String, token: String? = nil, signedDate: String = "2024-03-04T08:00:00Z"
    ) throws -> String {
        try StoreEventFixtures.consumptionRequest(
            uuid: uuid, txn: txn, token: token, signedDate: signedDate, signer: pki)
    }

    /// `iapscreen consumption` on the requests, with `extra` arguments, in the world's folder.
    func consumption(_ extra: [String], out: String = "answers") throws -> ToolRun {
        try Tool.run(
            ["consumption", "--rules", "Rules", "--store-events", "requests.jsonl", "--now", Self.now, "--out", out]
                + extra, in: scratch.path)
    }

    /// consumption.jsonl of `out`, a JSON object a line.
    func lines(_ out: String) throws -> [JSONObject] {
        try scratch.read(out + "/consumption.jsonl").split(separator: "\n").map { line in
            guard let o = try JSONParser.parse(String(line)).object else { throw Bad(line: String(line)) }
            return o
        }
    }

    /// summary.json's `consumption_requests` of `out`.
    func counts(_ out: String) throws -> [String: Int64] {
        let summary = try JSONParser.parse(try scratch.read(out + "/summary.json")).object
        var out: [String: Int64] = [:]
        for (k, v) in summary?["consumption_requests"]?.object?.members ?? [] { out[k] = v.int64 }
        return out
    }

    struct Bad: Error { var line: String }
}
