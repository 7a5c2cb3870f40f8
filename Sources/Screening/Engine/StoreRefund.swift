import IAPBasics

/// What a believed store event says of one transaction: a refund (the store took the money
/// back) or Apple's reversal of one (docs/store-events.md). Small, so a night of a million events
/// keeps them all: the event's full record stays in its log, at `location`.
public struct StoreRefund: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case refund, reversal
    }

    public var kind: Kind
    /// The claim key of the transaction (as `claimKey` makes it), once resolved.
    public var key: String {
        didSet { unkeyedName = nil }
    }
    /// What names the transaction while `key` is empty (a Google purchase token).
    private var unkeyedName: String?
    /// The transaction as people know it: Apple transaction id, Google order id or token
    /// (the key without its store prefix: kept once, not twice).
    public var transaction: String {
        key.isEmpty ? unkeyedName ?? "" : ClaimKey.bare(key)
    }
    /// `REFUND`, `REVOKE`, `refund-history`, `voided`, `rtdn-voided`, `rtdn-revoked`, `REFUND_REVERSED`.
    public var event: String
    /// When the store refunded (or reversed).
    public var at: Timestamp
    public var reason: String?
    public var source: String?
    public var revocationType: String?
    public var revocationPercentage: Int64?
    /// Where the event stands in tonight's logs; nil: a refund the ledger remembers from an
    /// earlier night.
    public var location: SourceLocation?

    /// `token`: what names the transaction when `key` is empty (a Google purchase token).
    public init(kind: Kind, key: String, token: String? = nil, event: String, at: Timestamp, location: SourceLocation?)
    {
        self.kind = kind
        self.key = key
        self.unkeyedName = key.isEmpty ? token : nil
        self.event = event
        self.at = at
        self.location = location
    }

    /// Where it was said, for messages.
    public var saidWhere: String { location.map(\.description) ?? "remembered by the ledger" }
}
