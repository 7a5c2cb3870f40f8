import Foundation
import IAPBasics
import JSONText
import ReceiptBuilder
import Testing

/// `iapscreen decode` on the payloads that Apple's and Google's own libraries read, stores
/// keep in odd shapes, and a careful reader must see judged rather than refused.
@Suite("decode prints every payload kind with the verdict a careful reader expects")
struct DecodeCommandTests {
    static let package = "com.example.game"

    /// One payload a line, in this order, signed by `pki` (trusted in the Rules written).
    static func payloads(_ pki: TestPKI) throws -> [String] {
        let signed = try #require(Timestamp.parse("2024-06-01T10:00:00Z"))
        let fewFields = JWSBuilder.FewFields(bundleID: package, signedDate: signed)
        var transaction = JWSBuilder.Transaction(
            transactionID: "2000000123", bundleID: package, productID: "com.example.game.gems",
            purchaseDate: signed, signedDate: signed)
        transaction.environment = "Sandbox"
        var legacy = LegacyReceiptBuilder.Spec(
            bundleID: package, productID: "com.example.game.gems", itemID: "521129812",
            transactionID: "1000000046178817", purchaseDate: signed)
        legacy.environment = nil
        let google = GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.1234-5678-9012-34567", packageName: package,
            productID: "gems_100", purchaseTime: signed, purchaseToken: "token-1")
        let original = google.originalJSON
        let signature = try GooglePurchaseBuilder.signature(of: original, with: pki.googleSigner)
        return [
            try JWSBuilder.fewFields(fewFields, with: pki.jwsSigner),
            try JWSBuilder.fewFields(JWSBuilder.FewFields(bundleID: nil, signedDate: signed), with: pki.jwsSigner),
            LegacyReceiptBuilder.withoutSignature(legacy),
            try LegacyReceiptBuilder.build(legacy, signedBy: pki.legacyReceiptSigner),
            try GooglePurchaseBuilder.payloadWithObject(
                originalJSON: original, signature: signature,
                wrapper: .dataAndSignature, form: .verbatim),
            try GooglePurchaseBuilder.payloadWithObject(
                originalJSON: original, signature: signature,
                wrapper: .base64DataAndSignature, form: .reserialized),
            JWSBuilder.decodedJSON(transaction),
        ]
    }

    static func decode(_ lines: [String], rules: String?) throws -> [JSONObject] {
        let run = try Tool.run(
            ["decode", "-"] + (rules.map { ["--rules", $0] } ?? []),
            stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        return try run.stdout.split(separator: "\n").map { try #require(try JSONParser.parse(String($0)).object) }
    }

    @Test("few-field JWS, an iOS 6 receipt without signature, data stored as an object, a decoded transaction")
    func oddKinds() throws {
        let pki = try TestPKI()
        let s = try Scratch()
        try pki.writeTrustDirectory(into: URL(fileURLWithPath: s.file("Rules")), googlePackageNames: [Self.package])
        let out = try Self.decode(try Self.payloads(pki), rules: s.file("Rules"))
        try #require(out.count == 7, "\(out)")
        for (i, o) in out.enumerated() { #expect(o["error"] == nil, "line \(i + 1): \(o)") }

        // A transaction of a few fields: decoded, no purchase, its signature checked as usual.
        #expect(out[0]["kind"] == .string("apple-jws-transaction"))
        #expect(out[0]["jws_type"] == .string("transaction"))
        #expect(out[0]["app_id"] == .string(Self.package))
        #expect(out[0]["purchases"] == .array([]))
        #expect(out[0]["signature"] == .string("valid"))
        #expect(out[1]["jws_type"] == .string("renewal-info"))
        #expect(out[1]["signature"] == .string("valid"))

        // iOS 6 without its signature: read, and invalid; its environment is never verified.
        #expect(out[2]["kind"] == .string("apple-legacy-receipt"))
        #expect(out[2]["signature"] == .string("invalid"))
        #expect(out[2]["signature_reason"] == .string("no signature"))
        #expect(out[2]["purchases"]?.array?.first?.object?["transaction_id"] == .string("1000000046178817"))
        #expect(out[2]["environment"] == .null)
        #expect(out[2]["environment_verified"] == .bool(false))
        #expect(out[3]["signature"] == .string("valid"))
        #expect(out[3]["environment_verified"] == .bool(false), "a valid signature does not cover the environment")

        // Google data as an object: verbatim verifies, written anew does not, and says why.
        #expect(out[4]["kind"] == .string("google-purchase"))
        #expect(out[4]["signature"] == .string("valid"))
        #expect(out[4]["original_json_was_object"] == .bool(true))
        #expect(out[5]["signature"] == .string("invalid"))
        #expect(
            out[5]["signature_reason"]
                == .string("bad signature: data was stored as a JSON object whose bytes were re-serialized"))
        #expect(out[5]["purchases"]?.array?.first?.object?["transaction_id"] == .string("GPA.1234-5678-9012-34567"))

        // A transaction's decoded JSON, no JWS: an unsigned claim.
        #expect(out[6]["kind"] == .string("apple-jws-transaction"))
        #expect(out[6]["jws_type"] == .string("transaction"))
        #expect(out[6]["environment"] == .string("Sandbox"))
        #expect(out[6]["signature"] == .string("unsigned"))
        #expect(out[6]["signature_reason"] == .string("decoded transaction JSON, no JWS"))
        #expect(out[6]["purchases"]?.array?.first?.object?["transaction_id"] == .string("2000000123"))

        // Without Rules: what is signed is unchecked, what cannot verify says so still.
        let bare = try Self.decode(try Self.payloads(pki), rules: nil).map { $0["signature"]?.string ?? "?" }
        #expect(bare == ["unchecked", "unchecked", "invalid", "unchecked", "unchecked", "unchecked", "unsigned"])
    }
}
