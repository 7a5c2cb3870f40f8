import Foundation
import IAPBasics
import ReceiptBuilder
import StoreCrypto
import Testing

/// Signs, verifies the signature with the leaf's key, the chain at `at`, then the marker policy:
/// "ok" or the first reason for refusal.
private func check(
    _ identity: SigningIdentity, against store: TrustStore, at: Timestamp,
    policy: AppleMarkerPolicy?
) throws -> String {
    let certificates = try identity.certificates.map { try X509Certificate(der: $0) }
    let leaf = try #require(certificates.first)
    let data = Array("payload".utf8)
    let signature = try identity.sign(data)
    let key = try leaf.publicKey()
    let digest = try #require(DigestAlgorithm(oid: identity.digestAlgorithmOID))
    let verdict =
        key.kind == .ecP256
        ? try key.verifyES256(signature: signature, over: data)
        : try key.verifyRSA(signature: signature, over: data, digest: digest)
    guard verdict.isValid else { return verdict.description }
    let chain = try store.verify(leaf: leaf, intermediates: Array(certificates.dropFirst()), at: at)
    guard chain.isTrusted else { return chain.reason }
    return policy?.violation(in: chain.chain) ?? "ok"
}

@Suite("Test PKI")
struct TestPKITests {
    @Test("every Apple signer verifies against the world's anchors, with its role markers")
    func appleSigners() throws {
        let pki = try sharedWorld.get()
        let store = try pki.appleTrustStore()
        let at = try time("2024-05-01T00:00:00Z")
        #expect(try check(pki.appReceiptSigner, against: store, at: at, policy: .receiptSigning) == "ok")
        #expect(try check(pki.appReceiptSignerSHA1, against: store, at: at, policy: .receiptSigning) == "ok")
        #expect(try check(pki.jwsSigner, against: store, at: at, policy: .receiptSigning) == "ok")
        #expect(try check(pki.legacyReceiptSigner, against: store, at: at, policy: .legacyReceiptSigning) == "ok")
        #expect(pki.jwsSigner.certificates.count == 3)
    }

    @Test("developer look-alikes chain to the root but lack the receipt-signing OID")
    func developerSigners() throws {
        let pki = try sharedWorld.get()
        let store = try pki.appleTrustStore()
        let at = try time("2024-05-01T00:00:00Z")
        #expect(
            try check(pki.developerReceiptSigner, against: store, at: at, policy: .receiptSigning)
                == "leaf lacks receipt-signing OID")
        #expect(
            try check(pki.developerJWSSigner, against: store, at: at, policy: .receiptSigning)
                == "leaf lacks receipt-signing OID")
    }

    @Test("Xcode signers are self-signed and never chain to the anchors")
    func xcodeSigners() throws {
        let pki = try sharedWorld.get()
        let store = try pki.appleTrustStore()
        let at = try time("2024-05-01T00:00:00Z")
        #expect(try check(pki.xcodeReceiptSigner, against: store, at: at, policy: nil) == "untrusted root")
        #expect(try check(pki.xcodeJWSSigner, against: store, at: at, policy: nil) == "untrusted root")
        #expect(pki.xcodeJWS.subjectCommonName == "StoreKit Testing in Xcode")
    }

    @Test("an iOS 6 leaf alone reaches the iTunes Store CA anchor")
    func legacyLeafAlone() throws {
        let pki = try sharedWorld.get()
        let verdict = try pki.appleTrustStore().verify(
            leaf: pki.legacyReceiptSigning, intermediates: [],
            at: try time("2012-04-30T15:05:55Z"))
        #expect(verdict.isTrusted)
        #expect(verdict.chain == [pki.legacyReceiptSigning, pki.iTunesStoreCA])
    }

    @Test("the Google key verifies from its PEM and from its one-line base64")
    func googleKey() throws {
        let pki = try sharedWorld.get()
        let data = Array("{\"orderId\":\"GPA.1\"}\n".utf8)
        let signature = try pki.googleSigner.sign(data)
        #expect(
            try PublicKey(pem: pki.googlePublicKeyPEM()).verifyRSA(signature: signature, over: data, digest: .sha1)
                == .valid)
        #expect(
            try PublicKey(base64DER: pki.googlePublicKeyBase64()).verifyRSA(
                signature: signature, over: data, digest: .sha1)
                == .valid)
    }

    @Test("a written trust directory holds the three anchors and a key per package, and verifies")
    func trustDirectory() throws {
        let pki = try sharedWorld.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("Rules")
        try pki.writeTrustDirectory(into: rules, googlePackageNames: ["com.example.game", "com.example.other"])
        let apple = rules.appendingPathComponent("trust/apple")
        let files = try FileManager.default.contentsOfDirectory(atPath: apple.path).sorted()
        #expect(files == ["apple-root-ca-g3.cer", "apple-root-ca.cer", "itunes-store-ca.cer"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: rules.appendingPathComponent("trust/google").path)
                .sorted()
                == ["com.example.game.pem", "com.example.other.pem"])
        let anchors = try files.flatMap {
            try X509Certificate.parseFile([UInt8](Data(contentsOf: apple.appendingPathComponent($0))))
        }
        #expect(
            try check(
                pki.jwsSigner, against: TrustStore(anchors: anchors), at: time("2020-01-01T00:00:00Z"),
                policy: .receiptSigning) == "ok")

        let pubRules = directory.appendingPathComponent("RulesPub")
        try pki.writeTrustDirectory(
            into: pubRules, googlePackageNames: ["com.example.game"], googleKeyFormat: .oneLineBase64)
        let pub = try Data(contentsOf: pubRules.appendingPathComponent("trust/google/com.example.game.pub"))
        let data = Array("x".utf8)
        #expect(
            try PublicKey.parse(keyFile: [UInt8](pub)).verifyRSA(
                signature: pki.googleSigner.sign(data), over: data,
                digest: .sha1) == .valid)
        #expect(throws: TestPKIError.self) {
            try pki.writeTrustDirectory(into: directory, googlePackageNames: ["../evil"])
        }
    }

    @Test("a saved world loads back with the same certificates and working keys")
    func saveAndLoad() throws {
        let pki = try sharedWorld.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pki-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try pki.save(to: directory)
        let loaded = try TestPKI.load(from: directory)
        #expect(loaded.appReceiptSigner.certificates == pki.appReceiptSigner.certificates)
        #expect(loaded.legacyReceiptSigner.certificates == pki.legacyReceiptSigner.certificates)
        #expect(try loaded.googlePublicKeyPEM() == pki.googlePublicKeyPEM())
        let store = try pki.appleTrustStore()
        #expect(
            try check(loaded.jwsSigner, against: store, at: time("2020-01-01T00:00:00Z"), policy: .receiptSigning)
                == "ok")
    }

    @Test("moved windows give an intermediate expired after signing; fresh keys give a forger")
    func customWindows() throws {
        var validity = try TestPKI.Validity.standard()
        validity.intermediates = try #require(
            TestPKI.Window(from: "2010-01-01T00:00:00Z", until: "2023-02-07T00:00:00Z"))
        validity.receiptLeaves = try #require(
            TestPKI.Window(from: "2015-01-01T00:00:00Z", until: "2022-01-01T00:00:00Z"))
        let pki = try TestPKI(validity: validity, keys: sharedKeys.get())
        let store = try sharedWorld.get().appleTrustStore()
        #expect(
            try check(pki.appReceiptSigner, against: store, at: time("2021-01-01T00:00:00Z"), policy: .receiptSigning)
                == "ok")
        #expect(
            try check(pki.appReceiptSigner, against: store, at: time("2022-06-01T00:00:00Z"), policy: .receiptSigning)
                == "certificate has expired")
        let forger = try TestPKI(validity: validity)
        #expect(
            try check(
                forger.appReceiptSigner, against: store, at: time("2021-01-01T00:00:00Z"), policy: .receiptSigning)
                == "untrusted root")
    }
}
