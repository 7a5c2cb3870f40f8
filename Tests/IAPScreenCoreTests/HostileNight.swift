import Foundation
import JSONText

/// A small night whose dump fields carry script and markup payloads, each of which would
/// change the page (its title, or a `data-pwned` attribute on the body) if it ever ran:
///
///     O-1          Google purchase GPA.1 of a product whose id is markup        signature-invalid (unsigned)
///     <script…>    the same purchase again, a day later: its order id closes a script element
///                                                                              replayed-transaction of O-1
///     O-3          no receipt; its user id is an <svg onload>                   missing-receipt (EUR)
///     O-4          an App Review account's test purchase                        sandbox-in-production, exempted
///     (line 5)     a status that is markup                                      malformed-record
struct HostileNight {
    static let imagePayload = #""><img src=x onerror="document.title='pwned'">"#
    static let scriptPayload = #"</script><script>document.body.setAttribute('data-pwned','1')</script>"#
    static let svgPayload = #"<svg onload="document.body.setAttribute('data-pwned','2')">"#
    static let statusPayload = #"<img src=x onerror="document.body.setAttribute('data-pwned','3')">"#
    static let transactionPayload = #"GPA.1<img src=x onerror="document.body.setAttribute('data-pwned','4')">"#

    let scratch: Scratch
    let orders: String
    var rules: String { scratch.file("Rules") }

    /// Writes the Rules and the orders dump (plus `extra` orders, as JSON objects) into `scratch`.
    init(in scratch: Scratch, name: String = "orders.jsonl", extra: [JSONObject] = []) throws {
        self.scratch = scratch
        try scratch.write(
            "Rules/catalog.csv",
            """
            item_id,platform,product_id,type,price,currency
            gems,android,gems_100,consumable,0.99,USD
            gems,ios,com.x.gems,consumable,0.99,USD

            """)
        try scratch.write("Rules/apps.csv", "platform,app_id\nandroid,com.example.game\nios,com.example.game\n")
        try scratch.write(
            "Rules/reviewers.csv", "user_id,from,until,note\nappreview-01,2024-02-29,2024-03-03,App Review\n")
        let rows =
            [
                HostileNight.order(
                    "O-1", user: "u1", platform: "android", product: HostileNight.imagePayload, amount: "0.99",
                    at: "2024-03-01T10:00:00Z",
                    receipt: HostileNight.google(HostileNight.transactionPayload, HostileNight.imagePayload)),
                HostileNight.order(
                    HostileNight.scriptPayload, user: "u2", platform: "android", product: HostileNight.imagePayload,
                    amount: "0.99",
                    at: "2024-03-02T10:00:00Z",
                    receipt: HostileNight.google(HostileNight.transactionPayload, HostileNight.imagePayload)),
                HostileNight.order(
                    "O-3", user: HostileNight.svgPayload, platform: "ios", product: "com.x.gems", amount: "4.99",
                    currency: "EUR", at: "2024-03-02T11:00:00Z"),
                HostileNight.order(
                    "O-4", user: "appreview-01", platform: "android", product: "gems_100", amount: "0.99",
                    at: "2024-03-02T12:00:00Z", receipt: HostileNight.google(nil, "gems_100")),
                JSONObject([
                    ("order_id", .string("O-5")), ("user_id", .string("u5")), ("product_id", .string("gems_100")),
                    ("created_at", .string("2024-03-02T12:00:00Z")), ("status", .string(HostileNight.statusPayload)),
                ]),
            ] + extra
        orders = try scratch.write(name, rows.map { JSONValue.object($0).jsonText + "\n" }.joined())
    }

    static func order(
        _ id: String, user: String, platform: String, product: String, amount: String, currency: String = "USD",
        at: String, receipt: String? = nil
    ) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = [
            ("order_id", .string(id)), ("user_id", .string(user)), ("platform", .string(platform)),
            ("product_id", .string(product)),
            ("amount", .string(amount)), ("currency", .string(currency)), ("created_at", .string(at)),
        ]
        if let receipt { members.append(("receipt", .string(receipt))) }
        return JSONObject(members)
    }

    /// An unsigned Google purchase (INAPP_PURCHASE_DATA alone); no order id is a test purchase.
    static func google(_ orderID: String?, _ product: String) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("packageName", .string("com.example.game")), ("productId", .string(product)),
            ("purchaseTime", .number("1709286000000")), ("purchaseState", .number("0")),
            ("purchaseToken", .string("token-" + (orderID ?? "test"))),
        ]
        if let orderID { members.append(("orderId", .string(orderID))) }
        return JSONValue.object(JSONObject(members)).jsonText
    }

    /// Night one on a ledger (reports in `night1`), the reviewers' `review` arguments, then
    /// night two (`night2`): the same orders and a new one, O-6 (no receipt).
    static func twoNights(in s: Scratch, reviews: [[String]]) throws {
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        let one = try HostileNight(in: s)
        try expectDone(Tool.run(one.screenArguments(out: s.file("night1"), ledger: ledger)), "night one")
        for review in reviews {
            try expectDone(Tool.run(["review"] + review + ["--ledger", ledger]), "review \(review)")
        }
        let two = try HostileNight(
            in: s, name: "night2.jsonl",
            extra: [
                order(
                    "O-6", user: "u6", platform: "ios", product: "com.x.gems", amount: "0.99",
                    at: "2024-03-03T09:00:00Z")
            ])
        try expectDone(Tool.run(two.screenArguments(out: s.file("night2"), ledger: ledger)), "night two")
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    static func expectDone(_ run: ToolRun, _ what: String) throws {
        guard run.status == 0 else { throw Failed(description: "\(what) exited \(run.status): \(run.stderr)") }
    }

    func screenArguments(out: String, ledger: String = "none") -> [String] {
        ["screen", "--rules", rules, "--orders", orders, "--out", out, "--ledger", ledger]
    }
}
