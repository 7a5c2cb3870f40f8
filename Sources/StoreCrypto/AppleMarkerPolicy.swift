/// Apple's private OIDs that mark a certificate's role. OpenSSL knows nothing of them:
/// without this check any certificate chaining to Apple's root (a developer's) could sign.
public enum AppleMarkerOID {
    /// Receipt and JWS signing leaf.
    public static let receiptSigning = "1.2.840.113635.100.6.11.1"
    /// Apple Worldwide Developer Relations intermediate (RSA and G6 EC).
    public static let wwdrIntermediate = "1.2.840.113635.100.6.2.1"
    /// Apple iTunes Store Certification Authority (iOS 6 receipts).
    public static let iTunesStoreIntermediate = "1.2.840.113635.100.6.2.2"
    /// iOS 6 transaction-receipt signing leaf.
    public static let legacyReceiptSigning = "1.2.840.113635.100.6.5.1"
}

/// Which marker the leaf and the intermediate of a verified chain must carry.
public struct AppleMarkerPolicy: Sendable, Equatable {
    public var leafOID: String
    public var leafRole: String
    public var intermediateOID: String
    public var intermediateRole: String

    public init(leafOID: String, leafRole: String, intermediateOID: String, intermediateRole: String) {
        self.leafOID = leafOID
        self.leafRole = leafRole
        self.intermediateOID = intermediateOID
        self.intermediateRole = intermediateRole
    }

    /// PKCS#7 app receipts and App Store JWS.
    public static let receiptSigning = AppleMarkerPolicy(
        leafOID: AppleMarkerOID.receiptSigning, leafRole: "receipt-signing",
        intermediateOID: AppleMarkerOID.wwdrIntermediate, intermediateRole: "WWDR")

    /// iOS 6 transaction receipts.
    public static let legacyReceiptSigning = AppleMarkerPolicy(
        leafOID: AppleMarkerOID.legacyReceiptSigning, leafRole: "iOS 6 receipt-signing",
        intermediateOID: AppleMarkerOID.iTunesStoreIntermediate, intermediateRole: "iTunes Store CA")

    /// Nil when `chain` (leaf first, as `ChainVerdict.chain`) carries both markers, else why not
    /// (`leaf lacks receipt-signing OID`, `intermediate lacks WWDR OID`, …).
    public func violation(in chain: [X509Certificate]) -> String? {
        guard let leaf = chain.first else { return "empty certificate chain" }
        guard leaf.hasExtension(oid: leafOID) else { return "leaf lacks \(leafRole) OID" }
        guard chain.count >= 2 else { return "chain lacks an intermediate" }
        guard chain[1].hasExtension(oid: intermediateOID) else { return "intermediate lacks \(intermediateRole) OID" }
        return nil
    }
}
