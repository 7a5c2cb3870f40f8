import JSONText

// Get Refund History's response [apple/app-store-server-library-swift
// `Models/RefundHistoryResponse.swift`]: every refunded or revoked transaction of a
// customer, each a signed transaction that normally carries its `revocationDate`.
//
//   {"signedTransactions": ["<JWS>", …], "revision": "…", "hasMore": false}
extension AppStoreEventBuilder {
    /// One page of Get Refund History, as a server that polls it stores the response.
    public struct RefundHistoryPage: Sendable {
        /// Transaction JWS, as `JWSBuilder.transaction` (or a forger) wrote them.
        public var signedTransactions: [String]
        /// The token Apple hands back for the next page.
        public var revision: String
        public var hasMore: Bool = false

        public init(signedTransactions: [String], revision: String) {
            self.signedTransactions = signedTransactions
            self.revision = revision
        }

        /// Each transaction signed by `identity`; give them a `revocationDate` to make them refunds.
        public init(transactions: [JWSBuilder.Transaction], signedBy identity: SigningIdentity, revision: String) throws
        {
            self.init(
                signedTransactions: try transactions.map { try JWSBuilder.transaction($0, with: identity) },
                revision: revision)
        }

        public var json: JSONObject {
            JSONObject([
                ("signedTransactions", .array(signedTransactions.map { .string($0) })),
                ("revision", .string(revision)),
                ("hasMore", .bool(hasMore)),
            ])
        }

        /// Compact JSON: one line of a store-event log.
        public var text: String { JSONValue.object(json).jsonText }
    }
}
