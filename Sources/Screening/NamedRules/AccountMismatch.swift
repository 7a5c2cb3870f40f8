import ReceiptFormats

/// `account-mismatch`: the purchase is bound to another account than the order's `user_id` —
/// Google's `obfuscatedAccountId` compared as text; Apple's `appAccountToken` (a UUID) only
/// when `user_id` is a UUID, case-insensitively. An unbound purchase gives no finding.
public enum AccountMismatch: NamedRule {
    public static let id: RuleID = "account-mismatch"
    public static let defaultSeverity = Severity.high
    public static let summary = "the purchase is bound to another account than the order's"
    public static let stage = RuleStage.purchaseState

    public static func judge(_ c: OrderContext, _ verdict: inout RuleVerdict) {
        guard let p = c.purchase, let d = c.digest else { return }
        let user = c.order.userID
        guard let token = p.accountToken, !token.isEmpty else {
            verdict.notApplicable("the purchase is bound to no account")
            return
        }
        switch d.platform {
        case .android where token != user:
            verdict.fire(
                "the purchase is bound to account \(token), the order credited \(user)",
                Evidence(expected: user, actual: token))
        case .ios where isUUID(user) && token.lowercased() != user.lowercased():
            verdict.fire(
                "the purchase's appAccountToken is \(token), the order credited \(user)",
                Evidence(expected: user, actual: token))
        case .ios where !isUUID(user):
            verdict.notApplicable("user id \(user) is not a UUID, so it cannot be an appAccountToken")
        default:
            verdict.pass("the purchase is bound to \(token), the order's user")
        }
    }

    /// `8-4-4-4-12` hex digits.
    static func isUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == 0x2D else { return false }
            } else {
                guard (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c) else {
                    return false
                }
            }
        }
        return true
    }
}
