import IAPBasics
import ReceiptFormats

extension ReceiptDigest {
    /// The receipt's key fields as a reviewer reads them beside a flagged order: what kind
    /// of proof it is, where it says it comes from, whether it verified, and the entry the
    /// order got (`picked`), when one did.
    public func keyFields(picked: Purchase?) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = [("kind", kind.rawValue)]
        if !kind.signsEnvironment {
            out.append(("environment", "\(environment ?? "absent") (not signed)"))
        } else if let environment {
            out.append(("environment", environment))
        }
        if let status { out.append(("status", String(status))) }
        if let appID { out.append(("app", appID)) }
        out.append(("signature", "\(signature.verdict.rawValue): \(signature.reason)"))
        if let forgery { out.append(("forged", forgery)) }
        out.append(("purchases", String(purchaseCount)))
        if let p = picked { out += p.keyFields }
        return out
    }
}

extension Purchase {
    /// The fields of one receipt entry that decide the rules.
    public var keyFields: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        if let productID { out.append(("product", productID)) }
        if let transactionID { out.append(("transaction", transactionID)) }
        if let originalTransactionID, originalTransactionID != transactionID {
            out.append(("original transaction", originalTransactionID))
        }
        if let purchaseToken, transactionID == nil { out.append(("purchase token", purchaseToken)) }
        if let purchaseDate { out.append(("purchased", purchaseDate.iso8601)) }
        if let expiresDate { out.append(("expires", expiresDate.iso8601)) }
        if let cancellationDate { out.append(("cancelled", cancellationDate.iso8601)) }
        if let accountToken, !accountToken.isEmpty { out.append(("account", accountToken)) }
        if let purchaseState { out.append(("purchase state", String(purchaseState))) }
        return out
    }
}

extension ClaimCandidate {
    /// What is left of an entry once the workers are done with it: enough to show which
    /// transaction an order took (a replay found only when the claims were made).
    public var keyFields: [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        if let t = transactionText { out.append(("transaction", t)) }
        if let d = purchaseDate { out.append(("purchased", d.iso8601)) }
        return out
    }
}
