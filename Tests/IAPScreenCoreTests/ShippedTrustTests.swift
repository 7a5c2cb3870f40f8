import Foundation
import JSONText
import StoreCrypto
import Testing

/// Signatures are checked by default (Rules/trust/README.md): the shipped Rules trust Apple's two
/// public roots, byte for byte, and a run whose Rules leave a store without trust says so.
@Suite("Trust shipped in Rules/, and what is left unchecked")
struct ShippedTrustTests {
    static let root = ShippedRulesTests.root
    /// Apple's published fingerprints (https://www.apple.com/certificateauthority/).
    static let fingerprints = [
        "AppleIncRootCertificate.cer": "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024",
        "AppleRootCA-G3.cer": "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179",
    ]

    @Test("Rules/trust/apple holds Apple Root CA and Apple Root CA - G3, byte for byte, as its README lists them")
    func shippedRoots() throws {
        let dir = Self.root + "/Rules/trust/apple"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files == Self.fingerprints.keys.sorted())
        let readme = try String(contentsOfFile: Self.root + "/Rules/trust/README.md", encoding: .utf8)
        for (file, fingerprint) in Self.fingerprints {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file)))
            #expect(Digest.hex(try Digest.sha256(bytes)) == fingerprint, "\(file)")
            #expect(readme.contains("`\(file)`") && readme.contains(fingerprint), "the README lists \(file)")
        }
    }

    @Test("rules check on the shipped Rules names Apple's two roots and warns that Google Play is not checked")
    func rulesCheckNamesTheRoots() throws {
        let r = try Tool.run(["rules", "check", "--rules", Self.root + "/Rules"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Apple: Apple Root CA (AppleIncRootCertificate.cer, SHA-256 b0b1730e"), "\(r.stdout)")
        #expect(r.stdout.contains("Apple: Apple Root CA - G3 (AppleRootCA-G3.cer, SHA-256 63343abf"))
        #expect(r.stdout.contains("warning: no Google Play key in trust/google"))
        #expect(!r.stdout.contains("warning: no Apple anchor"))
    }

    @Test("a real App Store JWS and a real app receipt, signed by Apple, verify with the shipped Rules alone")
    func realReceiptsVerify() throws {
        let fixtures = Self.root + "/Tests/Fixtures/RealReceipts/"
        for file in ["sandbox-storekit2-transaction.jws", "sandbox-app-receipt.b64"] {
            let checked = try Tool.run(["decode", fixtures + file, "--rules", Self.root + "/Rules"])
            let first = checked.stdout.split(separator: "\n").first.map(String.init) ?? ""
            let line = try #require(try JSONParser.parse(first).object)
            #expect(line["signature"] == .string("valid"), "\(file): \(checked.stdout.prefix(600))")
            let unchecked = try Tool.run(["decode", fixtures + file])
            #expect(unchecked.stdout.contains(#""signature":"unchecked""#), "\(file) without trust")
        }
    }

    @Test(
        "a night with Google receipts and no Google key: every run names the store on stderr, --quiet too, and summary.json lists it; trusted, nothing is said"
    )
    func unverifiedStores() throws {
        let w = try ThreeNights()
        try w.write(
            "night.jsonl",
            [
                try w.apple("A", txn: "1001", at: "2024-03-01T10:00:00Z"),
                try w.google("C", orderID: "GPA.1", token: "tok-c", item: "gems", at: "2024-03-01T10:00:00Z"),
            ])
        func screen(_ out: String, quiet: Bool = false) throws -> (ToolRun, [String]) {
            let r = try Tool.run(
                ["screen", "--rules", "Rules", "--orders", "night.jsonl", "--out", out, "--ledger", "none"]
                    + (quiet ? ["--quiet"] : []), in: w.scratch.path)
            #expect(r.status == 0, "\(r.stderr)")
            let summary = try JSONParser.parse(try w.scratch.read(out + "/summary.json")).object
            guard case .array(let stores)? = summary?["unverified_stores"] else { return (r, ["missing"]) }
            return (r, stores.compactMap(\.string))
        }
        let (trusted, none) = try screen("trusted")
        #expect(none.isEmpty && !trusted.stderr.contains("warning"))
        try FileManager.default.removeItem(atPath: w.scratch.file("Rules/trust/google"))
        for quiet in [false, true] {
            let (r, stores) = try screen("untrusted-\(quiet)", quiet: quiet)
            #expect(stores == ["google"])
            #expect(
                r.stderr.contains("warning: no Google Play key in trust/google")
                    && r.stderr.contains("tonight's google receipts are unverified"), "\(r.stderr)")
        }
    }
}
