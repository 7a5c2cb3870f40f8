import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import StoreCrypto
import Testing

/// Keys are slow to make: one set per test process, shared by every world below.
private let sharedKeys = Result { try TestPKI.Keys.generate() }

/// The fake Apple and Google worlds the tests sign with, and verifiers trusting our own.
enum VerificationWorld {
    static let bundleID = "com.example.game"
    static let packageName = "com.example.game"

    /// Wide windows: any receipt dated 2010–2034 verifies.
    static func ours() throws -> TestPKI { try standard.get() }

    /// Intermediates valid 2005–2016, leaves 2010–2015: a 2014 receipt verifies at its
    /// creation date although its intermediate has since expired; a mid-2015 one was signed
    /// by an expired leaf.
    static func expiring() throws -> TestPKI { try expiringWorld.get() }

    /// The same names with fresh root keys: a forger's chain, rooted outside our anchors.
    static func forger() throws -> TestPKI { try forgerWorld.get() }

    /// Trusts `ours()`'s anchors and its Google key for `packageName`.
    static func verifier(cachesChains: Bool = true) throws -> ReceiptVerifier {
        let pki = try ours()
        return try ReceiptVerifier(
            appleAnchors: pki.appleAnchors,
            googleKeys: [packageName: pki.keys.google.publicKey()], cachesChains: cachesChains)
    }

    private static let standard = Result { try TestPKI(keys: sharedKeys.get()) }

    private static let expiringWorld = Result { () throws -> TestPKI in
        var validity = try TestPKI.Validity.standard()
        validity.intermediates = try window("2005-01-01T00:00:00Z", "2016-01-01T00:00:00Z")
        validity.receiptLeaves = try window("2010-01-01T00:00:00Z", "2015-01-01T00:00:00Z")
        return try TestPKI(validity: validity, keys: sharedKeys.get())
    }

    private static let forgerWorld = Result { () throws -> TestPKI in
        var keys = try sharedKeys.get()
        keys.appleRoot = try PrivateKey.generate(.rsa(bits: 2048))
        keys.appleRootG3 = try PrivateKey.generate(.ecP256)
        return try TestPKI(keys: keys)
    }

    private static func window(_ from: String, _ until: String) throws -> TestPKI.Window {
        try #require(TestPKI.Window(from: from, until: until))
    }
}

/// Builders and decoding in the words the tests use.
enum Make {
    static func time(_ text: String) throws -> Timestamp {
        try #require(Timestamp.parse(text))
    }

    static func decode(_ payload: [UInt8]) throws -> Receipt {
        try ReceiptDecoder.decode(payload)
    }

    static func decode(_ text: String) throws -> Receipt {
        try decode(Array(text.utf8))
    }

    /// An app receipt of `bundleID` created at `created`, holding `purchases` in-app entries
    /// (transaction ids 1000, 1001, …; the first a subscription expiring `expires`).
    static func appReceiptSpec(
        created: String, purchases: Int = 3, expires: String = "2020-05-01T00:00:00Z",
        environment: String = "Production"
    ) throws -> AppReceiptBuilder.Spec {
        let creation = try time(created)
        var spec = AppReceiptBuilder.Spec(
            environment: environment, bundleID: VerificationWorld.bundleID, appVersion: "42",
            appItemID: 1_234_567_890, creationDate: creation)
        for index in 0..<purchases {
            let product = index == 0 ? "com.example.game.vip" : "com.example.game.coins"
            var purchase = AppReceiptBuilder.InAppPurchase(
                productID: product, transactionID: String(1000 + index),
                purchaseDate: try time("2020-04-01T00:00:00Z"))
            purchase.productTypeCode = index == 0 ? 3 : 1
            if index == 0 { purchase.expiresDate = try time(expires) }
            spec.purchases.append(purchase)
        }
        return spec
    }

    static func appReceipt(created: String, signedBy identity: SigningIdentity, purchases: Int = 3) throws -> [UInt8] {
        try AppReceiptBuilder.build(appReceiptSpec(created: created, purchases: purchases), signedBy: identity)
    }

    static func transaction(signed: String, environment: String = "Production") throws -> JWSBuilder.Transaction {
        var spec = JWSBuilder.Transaction(
            transactionID: "2000000123", bundleID: VerificationWorld.bundleID,
            productID: "com.example.game.coins", purchaseDate: try time(signed),
            signedDate: try time(signed))
        spec.environment = environment
        return spec
    }

    static func googlePurchase(package: String = VerificationWorld.packageName) throws
        -> GooglePurchaseBuilder.PurchaseData
    {
        GooglePurchaseBuilder.PurchaseData(
            orderID: "GPA.1234-5678-9012-34567", packageName: package,
            productID: "coins100", purchaseTime: try time("2024-03-01T12:00:00Z"),
            purchaseToken: "token-abc", obfuscatedAccountID: "user-42")
    }

    /// The same bytes with bit 0 of byte `index` flipped.
    static func flipping(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var changed = bytes
        changed[index] ^= 0x01
        return changed
    }
}

extension ReceiptVerifier {
    /// Just the verdict and its reason, for the common case.
    func status(of receipt: Receipt) -> SignatureStatus {
        verify(receipt).status
    }
}
