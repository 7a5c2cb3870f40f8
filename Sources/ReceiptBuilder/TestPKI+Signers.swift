import StoreCrypto

extension TestPKI {
    /// PKCS#7 app receipts as signed today: RSA PKCS#1 v1.5 SHA-256; leaf, WWDR, root.
    public var appReceiptSigner: SigningIdentity {
        Self.rsa(keys.receiptSigning, .sha256, [receiptSigning, wwdr, appleRoot])
    }

    /// Older app receipts (before 2023): the same chain, SHA-1.
    public var appReceiptSignerSHA1: SigningIdentity {
        Self.rsa(keys.receiptSigning, .sha1, [receiptSigning, wwdr, appleRoot])
    }

    /// StoreKit 2 / App Store Server API JWS: ES256 raw r ‖ s; x5c leaf, WWDR G6, root G3.
    public var jwsSigner: SigningIdentity {
        Self.es256(keys.jwsSigning, [jwsSigning, wwdrG6, appleRootG3])
    }

    /// iOS 6 transaction receipts: RSA-1024 SHA-1; leaf, iTunes Store CA, root.
    public var legacyReceiptSigner: SigningIdentity {
        Self.rsa(keys.legacyReceiptSigning, .sha1, [legacyReceiptSigning, iTunesStoreCA, appleRoot])
    }

    /// Xcode StoreKit Testing receipts: SHA-256, the self-signed certificate alone.
    public var xcodeReceiptSigner: SigningIdentity {
        Self.rsa(keys.xcodeRSA, .sha256, [xcodeReceipt])
    }

    /// Xcode StoreKit Testing JWS: ES256, the self-signed certificate alone.
    public var xcodeJWSSigner: SigningIdentity {
        Self.es256(keys.xcodeEC, [xcodeJWS])
    }

    /// A developer certificate under the real WWDR, lacking the receipt-signing OID:
    /// chains to the root, must still be refused.
    public var developerReceiptSigner: SigningIdentity {
        Self.rsa(keys.receiptSigning, .sha256, [developerReceiptSigning, wwdr, appleRoot])
    }

    /// The JWS counterpart of `developerReceiptSigner`.
    public var developerJWSSigner: SigningIdentity {
        Self.es256(keys.jwsSigning, [developerJWSSigning, wwdrG6, appleRootG3])
    }

    /// Google Play: SHA1withRSA over the exact `originalJson` bytes; no certificates.
    public var googleSigner: SigningIdentity {
        Self.rsa(keys.google, .sha1, [])
    }

    private static func rsa(_ key: PrivateKey, _ digest: DigestAlgorithm, _ chain: [X509Certificate]) -> SigningIdentity
    {
        SigningIdentity(certificates: chain.map(\.der), digestAlgorithmOID: digest.oid) { data in
            try key.signRSA(data, digest: digest)
        }
    }

    private static func es256(_ key: PrivateKey, _ chain: [X509Certificate]) -> SigningIdentity {
        SigningIdentity(certificates: chain.map(\.der), digestAlgorithmOID: DigestAlgorithm.sha256.oid) { data in
            try key.signES256(data)
        }
    }
}
