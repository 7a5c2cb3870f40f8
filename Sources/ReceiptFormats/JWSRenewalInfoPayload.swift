import IAPBasics
import JSONText

// JWSRenewalInfoDecodedPayload [formats.md §4.3; ASL-py `models/JWSRenewalInfoDecodedPayload.py`]:
// the state of a subscription's next renewal, not a purchase, so it yields no purchases.
//
//   key                        example                              -> Receipt
//   environment                Production | Sandbox | Xcode         environment
//   signedDate                 1698148900000                        creationDate, JWSSigned.signedDate
//   originalTransactionId, productId, autoRenewProductId, autoRenewStatus (0/1),
//   expirationIntent, renewalDate, isInBillingRetryPeriod, gracePeriodExpiresDate,
//   appAccountToken, appTransactionId                               extras, as written
enum JWSRenewalInfoPayload {
    static let extraKeys = ExtraName<AppStoreField>.list([
        .originalTransactionId, .productId, .autoRenewProductId, .autoRenewStatus, .expirationIntent,
        .renewalDate, .isInBillingRetryPeriod, .gracePeriodExpiresDate, .appAccountToken, .appTransactionId,
    ])

    static func read(_ f: StoreJSONFields<AppStoreField>, into receipt: inout Receipt) throws(DecodeError) {
        receipt.environment = try f.text(.environment)
        try f.copy(extraKeys, into: &receipt.extras)
    }
}
