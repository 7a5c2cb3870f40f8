/// A JWS nested in a server notification's `data`, named by the key that held it. Each is
/// signed on its own (checked at its own `signedDate`); the notification is trusted only
/// when it and every one of these verify.
public struct NestedJWS: Sendable, Equatable {
    /// The keys of a notification's `data` that hold a JWS [formats.md §4.3; ASL-py `models/Data.py`].
    public enum Field: String, Sendable, CaseIterable {
        case signedTransactionInfo
        case signedRenewalInfo

        /// The payload the key says it holds; a few-field payload is taken for it.
        public var payload: Receipt.JWSType {
            switch self {
            case .signedTransactionInfo: return .transaction
            case .signedRenewalInfo: return .renewalInfo
            }
        }

        /// The member of `data` it is.
        var member: AppStoreField {
            switch self {
            case .signedTransactionInfo: return .signedTransactionInfo
            case .signedRenewalInfo: return .signedRenewalInfo
            }
        }

        /// That payload in words, for the error when it holds another.
        var payloadName: String {
            switch self {
            case .signedTransactionInfo: return "a transaction"
            case .signedRenewalInfo: return "renewal info"
            }
        }
    }

    public var field: Field
    public var signed: JWSSigned

    public init(field: Field, signed: JWSSigned) {
        self.field = field
        self.signed = signed
    }
}
