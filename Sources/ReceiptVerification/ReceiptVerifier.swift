import ReceiptFormats

/// Checks a decoded receipt's signature and chain against the Rules directory's trust.
public struct ReceiptVerifier: Sendable {
    public init() {}

    /// Until trust anchors are loaded, signed material is `unchecked`.
    public func verify(_ receipt: Receipt) -> (status: SignatureStatus, forgery: String?) {
        (.withoutTrust(receipt), nil)
    }
}
