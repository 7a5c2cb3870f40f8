import IAPBasics
import StoreCrypto
import Testing

@Suite("Key import and export")
struct KeyImportTests {
    let message = Array("purchase".utf8)

    @Test("a public key read back from DER, PEM or Google's one-line base64 verifies the same signature")
    func publicKeyForms() throws {
        let world = try TestWorld.shared.get()
        let key = try world.leafKey.publicKey()
        let signature = try world.leafKey.signRSA(message, digest: .sha1)
        let der = try key.derSubjectPublicKeyInfo()
        let pem = try key.pem()
        let oneLine = try key.base64DER()
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(!oneLine.contains("\n"))
        let imported = [
            try PublicKey(derSubjectPublicKeyInfo: der), try PublicKey(pem: pem), try PublicKey(base64DER: oneLine),
            try PublicKey.parse(keyFile: Array(pem.utf8)), try PublicKey.parse(keyFile: Array((oneLine + "\n").utf8)),
        ]
        for key in imported {
            #expect(key.kind == .rsa(bits: 2048))
            #expect(try key.derSubjectPublicKeyInfo() == der)
            #expect(try key.verifyRSA(signature: signature, over: message, digest: .sha1) == .valid)
        }
    }

    @Test("an EC public key survives a PEM round trip")
    func ecPublicKey() throws {
        let world = try TestWorld.shared.get()
        let pem = try world.ecKey.publicKey().pem()
        let key = try PublicKey(pem: pem)
        #expect(key.kind == .ecP256)
        #expect(try key.verifyES256(signature: world.ecKey.signES256(message), over: message) == .valid)
    }

    @Test("a private key saved as PKCS#8 PEM and read back signs for the same public key")
    func privateKeyRoundTrip() throws {
        let world = try TestWorld.shared.get()
        for original in [world.leafKey, world.ecKey] {
            let pem = try original.pkcs8PEM()
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            let restored = try PrivateKey(pem: pem)
            #expect(restored.kind == original.kind)
            #expect(
                try restored.publicKey().derSubjectPublicKeyInfo() == original.publicKey().derSubjectPublicKeyInfo())
        }
    }

    @Test(
        "garbage key bytes are a bad-key error, never a crash",
        arguments: [[], [0x30], [0x30, 0x82, 0xFF, 0xFF, 0x02], [UInt8](repeating: 0x41, count: 40)] as [[UInt8]])
    func garbageDER(bytes: [UInt8]) {
        #expect(throws: CryptoError.self) { try PublicKey(derSubjectPublicKeyInfo: bytes) }
        #expect(
            performing: { try PublicKey(derSubjectPublicKeyInfo: bytes) },
            throws: { ($0 as? CryptoError)?.code == .badKey })
    }

    @Test("a key with bytes left over after its DER is refused")
    func trailingBytes() throws {
        let der = try TestWorld.shared.get().leafKey.publicKey().derSubjectPublicKeyInfo()
        #expect(throws: CryptoError.self) { try PublicKey(derSubjectPublicKeyInfo: der + [0x00]) }
        #expect(throws: CryptoError.self) { try PublicKey(derSubjectPublicKeyInfo: Array(der.dropLast())) }
    }

    @Test("text that is not a key is refused: bad base64, bad PEM, a certificate, an encrypted key")
    func garbageText() throws {
        let world = try TestWorld.shared.get()
        let certificatePEM =
            "-----BEGIN CERTIFICATE-----\n\(Base64.encode(world.root.der))\n-----END CERTIFICATE-----\n"
        let encrypted = """
            -----BEGIN RSA PRIVATE KEY-----
            Proc-Type: 4,ENCRYPTED
            DEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF

            AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
            -----END RSA PRIVATE KEY-----

            """
        #expect(throws: CryptoError.self) { try PublicKey(base64DER: "MIIB!not-base64") }
        #expect(throws: CryptoError.self) { try PublicKey(base64DER: "") }
        #expect(throws: CryptoError.self) {
            try PublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
        #expect(throws: CryptoError.self) { try PublicKey(pem: certificatePEM) }
        #expect(throws: CryptoError.self) { try PublicKey.parse(keyFile: Array("hello".utf8)) }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: "not a key") }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: encrypted) }
    }

    @Test("a refused key says why in OpenSSL's words")
    func errorCarriesOpenSSLMessage() {
        #expect(
            performing: { try PublicKey(derSubjectPublicKeyInfo: [0x30, 0x03, 0x02, 0x01, 0x01]) },
            throws: { error in
                guard let error = error as? CryptoError else { return false }
                return error.code == .badKey && error.reason.contains("error:")
            })
    }
}
