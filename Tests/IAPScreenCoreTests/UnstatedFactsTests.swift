import Foundation
import JSONText
import Testing

/// What a row leaves out (its platform, its product) must never turn a finding into a
/// data-quality row. A credited order with no proof at all is the LocalIAPStore pattern:
/// it reads as `missing-receipt`, whatever else the row lacks.
@Suite("Orders whose row leaves facts out")
struct UnstatedFactsTests {
    /// Gems on both platforms, as most games sell them; the ad remover on iOS only.
    static func night(_ s: Scratch, _ rows: String) throws -> [String] {
        try s.write(
            "Rules/catalog.csv",
            """
            item_id,platform,product_id,type,price,currency
            gems,android,gems_100,consumable,0.99,USD
            gems,ios,com.x.gems,consumable,0.99,USD
            no_ads,ios,com.x.noads,non_consumable,2.99,USD

            """)
        try s.write("Rules/apps.csv", "platform,app_id\nandroid,com.example.game\nios,com.example.game\n")
        let orders = try s.write("orders.csv", "order_id,user_id,item_id,product_id,receipt,created_at\n" + rows)
        return ["screen", "--rules", s.file("Rules"), "--orders", orders, "--out", s.file("out"), "--ledger", "none"]
    }

    static func rules(_ s: Scratch) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for f in try FindingLine.read(s.file("out/findings.jsonl")) {
            out[f.orderID ?? "-", default: []].append(f.rule)
        }
        return out
    }

    @Test(
        "a credited order with no receipt is missing-receipt even when its item is on both platforms and the row names none"
    )
    func ambiguousItemWithoutReceipt() throws {
        let s = try Scratch()
        let r = try Tool.run(
            try Self.night(
                s,
                """
                A,u1,gems,,,2024-03-01T10:00:00Z
                B,u2,,,,2024-03-01T10:00:00Z
                C,u3,crystals,,,2024-03-01T10:00:00Z

                """))
        #expect(r.status == 0, "\(r.stderr)")
        let found = try Self.rules(s)
        #expect(found["A"] == ["missing-receipt"])
        #expect(found["B"] == ["missing-receipt"], "no item and no product is still a credited order")
        #expect(found["C"] == ["missing-receipt"], "an item the catalog lacks needs no product without a receipt")
        #expect(found.keys.sorted() == ["A", "B", "C"])
        let findings = try FindingLine.read(s.file("out/findings.jsonl"))
        let a = try #require(findings.first { $0.orderID == "A" })
        #expect(a.object["evidence"]?.object?["expected"]?.string == "a receipt for item gems")
        // Flagged like any finding of its severity: a row in flagged.csv.
        let flagged = try s.read("out/flagged.csv")
        #expect(flagged.contains("\nA,u1,"))
    }

    @Test("an unreadable receipt stands alone as receipt-undecodable, whether or not the product can be chosen")
    func undecodableWithAmbiguousItem() throws {
        let s = try Scratch()
        let r = try Tool.run(try Self.night(s, "D,u4,gems,,not a receipt,2024-03-01T10:00:00Z\n"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.rules(s) == ["D": ["receipt-undecodable"]])
    }

    @Test(
        "a decoded receipt whose order names an item the catalog lacks is a malformed record, and the rules that need no product still judge it"
    )
    func decodedReceiptUnknownItem() throws {
        let s = try Scratch()
        let google =
            #"{""packageName"":""com.example.game"",""productId"":""gems_100"",""purchaseTime"":1709286000000,""purchaseState"":0,""purchaseToken"":""t"",""orderId"":""GPA.1""}"#
        let clone = google.replacingOccurrences(of: "com.example.game", with: "com.cheap.clone").replacingOccurrences(
            of: "GPA.1", with: "GPA.9")
        let r = try Tool.run(
            try Self.night(
                s,
                """
                E,u5,crystals,,"\(google)",2024-03-01T10:00:00Z
                G,u7,,,"\(clone)",2024-03-01T10:00:00Z

                """))
        #expect(r.status == 0, "\(r.stderr)")
        let found = try Self.rules(s)
        // The purchase is unsigned: that is critical whatever the order's product.
        #expect(found["E"] == ["malformed-record", "signature-invalid"])
        #expect(found["G"]?.sorted() == ["bundle-id-mismatch", "malformed-record", "signature-invalid"])
        let lines = try FindingLine.read(s.file("out/findings.jsonl"))
        let malformed = try #require(lines.first { $0.orderID == "E" && $0.rule == "malformed-record" })
        #expect(malformed.object["message"]?.string?.contains("item crystals is not in the catalog") == true)
        #expect(malformed.object["evidence"]?.object?["line"]?.int64 == 2)
        #expect(
            lines.first { $0.orderID == "G" && $0.rule == "malformed-record" }?.object["message"]?.string?
                .contains("neither item_id nor product_id") == true)
        // One row per order in flagged.csv, not one for the order and one for its record.
        #expect(try s.read("out/flagged.csv").split(separator: "\n").filter { $0.hasPrefix("E,") }.count == 1)
    }

    @Test("an iOS-only item credited with a Google receipt is an item-id mismatch, not a row the catalog cannot place")
    func itemOfTheOtherStore() throws {
        let s = try Scratch()
        let google =
            #"{""packageName"":""com.example.game"",""productId"":""gems_100"",""purchaseTime"":1709286000000,""purchaseState"":0,""purchaseToken"":""t"",""orderId"":""GPA.2""}"#
        let r = try Tool.run(try Self.night(s, "F,u6,no_ads,,\"\(google)\",2024-03-01T10:00:00Z\n"))
        #expect(r.status == 0, "\(r.stderr)")
        // Unsigned, so signature-invalid too; the point is the mismatch.
        #expect(try Self.rules(s)["F"]?.sorted() == ["item-id-mismatch", "signature-invalid"])
        let mismatch = try #require(
            try FindingLine.read(s.file("out/findings.jsonl")).first { $0.rule == "item-id-mismatch" })
        #expect(mismatch.object["evidence"]?.object?["expected"]?.string == "com.x.noads")
        #expect(mismatch.object["evidence"]?.object?["actual"]?.string == "gems_100")
    }

    @Test("in a generated world every credited order without a receipt is reported as missing-receipt and nothing else")
    func generatedWorld() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let r = try Tool.run(world.screenArguments(out: s.file("out")))
        #expect(r.status == 0, "\(r.stderr)")
        let planted = try world.expectations().filter { $0.value.name == "missing-receipt" }.map(\.key)
        try #require(!planted.isEmpty, "the world plants no missing receipt")
        let found = try Self.rules(s)
        for order in planted { #expect(found[order] == ["missing-receipt"], "\(order): \(found[order] ?? [])") }
        // The App Store rows among them name no platform: the pattern the fix is about is in the world.
        let apple = try world.orders.filter { !$0.hasSuffix("play.jsonl.gz") }.flatMap(gunzipLines)
            .filter { line in planted.contains { line.contains($0 + ",") || line.contains(">" + $0 + "<") } }
        #expect(!apple.isEmpty)
        for row in apple { #expect(!["appstore", ",ios,"].contains { row.contains($0) }, "\(row)") }
    }
}
