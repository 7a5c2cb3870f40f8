import IAPBasics
import ReceiptFormats
import Screening
import Testing

@testable import Night

/// The files a night read in parts keeps between its passes (`PassFile`): what goes in comes
/// back, across the file's buffer, and a short or foreign file is an error, never a crash.
@Suite("Pass files")
struct PassFileTests {
    @Test("values, strings of every size and a receipt's digest come back as written, across the buffer's edge")
    func roundTrip() throws {
        let f = try PassFile()
        var p = Purchase()
        p.productID = "com.x.gems"
        p.transactionID = "5001"
        p.purchaseDate = Timestamp(clampingMillis: 1_709_280_000_123)
        p.expiresDate = Timestamp(clampingMillis: -5, hasMilliseconds: false)
        p.productType = .unknown("odd ✓")
        p.purchaseToken = "tok.1"
        p.purchaseState = 0
        var q = Purchase()
        q.productType = .nonConsumable
        q.quantity = -3
        let digest = ReceiptDigest(
            kind: .appleAppReceipt, platform: .ios, jwsType: nil, environment: "Sandbox", appID: "com.x",
            status: 21007, signature: SignatureStatus(.invalid, "forged"), forgery: nil, purchaseCount: 9,
            candidates: [p, q], holdsOrderTransaction: false, products: ["a", "b"])
        let big = String(repeating: "é", count: 700_000)
        for k in 0..<3 {
            try f.put(Int64.min + Int64(k))
            try f.put(big)
            try f.put(nil as String?)
            try f.put("" as String?)
            try f.put(digest)
            try f.put(SourceLocation(file: "orders.xml", row: 7 + k))
        }
        try f.rewind()
        for k in 0..<3 {
            #expect(try f.int64() == Int64.min + Int64(k))
            #expect(try f.string() == big)
            #expect(try f.optionalString() == nil)
            #expect(try f.optionalString() == "")
            let back = try f.digest()
            #expect(back.candidates == digest.candidates)
            #expect(back.signature == digest.signature && back.environment == "Sandbox" && back.status == 21007)
            #expect(back.holdsOrderTransaction == false && back.products == ["a", "b"] && back.purchaseCount == 9)
            #expect(try f.location() == SourceLocation(file: "orders.xml", row: 7 + k))
        }
        #expect(f.atEnd)
    }

    @Test("a file that ends early, a count past its end, a flag that is no flag, a read before the rewind: errors")
    func hostile() throws {
        let f = try PassFile()
        #expect(throws: PassFile.Failure.self) { _ = try f.int64() }
        try f.put(Int64(1 << 40))
        try f.put(7 as UInt8)
        try f.put(UInt64.max)
        try f.rewind()
        #expect(throws: PassFile.Failure.self) { _ = try f.count() }
        #expect(throws: PassFile.Failure.self) { _ = try f.bool() }
        #expect(throws: PassFile.Failure.self) { _ = try f.string() }
        let short = try PassFile()
        try short.put(UInt64(5))
        try short.put([0x61, 0x62] as [UInt8])
        try short.rewind()
        #expect(throws: PassFile.Failure.self) { _ = try short.string() }
        let foreign = try PassFile()
        try foreign.put("not-a-kind")
        try foreign.rewind()
        #expect(throws: PassFile.Failure.self) { _ = try foreign.digest() }
    }
}
