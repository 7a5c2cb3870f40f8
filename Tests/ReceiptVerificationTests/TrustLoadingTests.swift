import Foundation
import IAPBasics
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

@Suite("Loading Rules/trust")
struct TrustLoadingTests {
    /// A fresh folder, removed after `body`.
    private func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            directory.appendingPathComponent($0).path
        }
    }

    @Test("a Rules directory's DER anchors and Google keys (.pem and .pub) verify what they sign")
    func fromFiles() throws {
        let pki = try VerificationWorld.ours()
        let receipt = try Make.decode(Make.appReceipt(created: "2024-06-01T10:00:00Z", signedBy: pki.appReceiptSigner))
        let google = try Make.decode(
            GooglePurchaseBuilder.payload(
                Make.googlePurchase(), with: pki.googleSigner,
                wrapper: .dataAndSignature))
        for format in [TestPKI.GoogleKeyFormat.pem, .oneLineBase64] {
            try withDirectory { rules in
                try pki.writeTrustDirectory(
                    into: rules, googlePackageNames: [VerificationWorld.packageName],
                    googleKeyFormat: format)
                let keyFile = try #require(files(in: rules.appendingPathComponent("trust/google")).first)
                let verifier = try ReceiptVerifier(
                    appleAnchorFiles: files(in: rules.appendingPathComponent("trust/apple")),
                    googleKeyFiles: [VerificationWorld.packageName: keyFile])
                #expect(verifier.status(of: receipt).verdict == .valid)
                #expect(verifier.status(of: google).verdict == .valid, "\(format)")
            }
        }
    }

    @Test("one PEM file holding several anchors trusts them all")
    func severalCertificatesInOnePEM() throws {
        let pki = try VerificationWorld.ours()
        try withDirectory { folder in
            let pem = pki.appleAnchors.map { certificate in
                "-----BEGIN CERTIFICATE-----\n" + lines(Base64.encode(certificate.der)) + "-----END CERTIFICATE-----\n"
            }.joined()
            let path = folder.appendingPathComponent("apple.pem").path
            try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
            let verifier = try ReceiptVerifier(appleAnchorFiles: [path], googleKeyFiles: [:])
            let jws = try JWSBuilder.transaction(Make.transaction(signed: "2024-06-01T10:00:00Z"), with: pki.jwsSigner)
            let receipt = try Make.decode(
                Make.appReceipt(created: "2024-06-01T10:00:00Z", signedBy: pki.appReceiptSigner))
            #expect(verifier.status(of: try Make.decode(jws)).verdict == .valid)
            #expect(verifier.status(of: receipt).verdict == .valid)
        }
    }

    @Test("an anchor file that is not a certificate is an error naming the file")
    func badAnchor() throws {
        try withDirectory { folder in
            let path = folder.appendingPathComponent("broken.cer").path
            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try ReceiptVerifier(appleAnchorFiles: [path], googleKeyFiles: [:])
            } throws: { error in
                (error as? TrustFileError)?.path == path
            }
            let missing = folder.appendingPathComponent("missing.pem").path
            #expect(throws: TrustFileError.self) {
                try ReceiptVerifier(appleAnchorFiles: [missing], googleKeyFiles: [:])
            }
        }
    }

    @Test("a Google key file that is not an RSA public key is an error naming the file")
    func badGoogleKey() throws {
        let pki = try VerificationWorld.ours()
        try withDirectory { folder in
            let garbage = folder.appendingPathComponent("com.example.game.pub").path
            try Data("@@@ not base64 @@@\n".utf8).write(to: URL(fileURLWithPath: garbage))
            #expect {
                try ReceiptVerifier(appleAnchorFiles: [], googleKeyFiles: ["com.example.game": garbage])
            } throws: { error in
                (error as? TrustFileError)?.path == garbage
            }
            let ec = folder.appendingPathComponent("com.example.ec.pem").path
            try Data(pki.keys.jwsSigning.publicKey().pem().utf8).write(to: URL(fileURLWithPath: ec))
            #expect {
                try ReceiptVerifier(appleAnchorFiles: [], googleKeyFiles: ["com.example.ec": ec])
            } throws: { error in
                (error as? TrustFileError)?.reason.contains("RSA") == true
            }
        }
    }

    @Test("without any trust, signed receipts are unchecked and unsigned ones unsigned")
    func noTrust() throws {
        let pki = try VerificationWorld.ours()
        let verifier = try ReceiptVerifier(appleAnchorFiles: [], googleKeyFiles: [:])
        let jws = try Make.decode(
            JWSBuilder.transaction(Make.transaction(signed: "2024-06-01T10:00:00Z"), with: pki.jwsSigner))
        let google = try Make.decode(
            GooglePurchaseBuilder.payload(
                Make.googlePurchase(), with: pki.googleSigner,
                wrapper: .dataAndSignature))
        #expect(verifier.status(of: jws) == SignatureStatus(.unchecked, "no Apple trust anchors configured"))
        #expect(verifier.status(of: google) == SignatureStatus(.unchecked, "no Google keys configured"))
        #expect(ReceiptVerifier().status(of: jws).verdict == .unchecked)
    }

    private func lines(_ base64: String) -> String {
        var out = ""
        var line = ""
        for character in base64 {
            line.append(character)
            if line.count == 64 {
                out += line + "\n"
                line = ""
            }
        }
        return line.isEmpty ? out : out + line + "\n"
    }
}
