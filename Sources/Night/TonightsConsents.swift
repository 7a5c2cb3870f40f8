import DumpFormats
import Ledger

/// Each user's latest consent as tonight's dumps state it (§13's `consent` column): by the
/// stating order's `created_at`, the later order on a tie. One pass over the night's orders;
/// what a refund request asks first, and what the ledger keeps of the night.
enum TonightsConsents {
    /// `users`, when given, limits the answer to those users (a refund request's need).
    static func latest(in night: NightLoader, of users: Set<String>? = nil) -> [String: RememberedConsent] {
        var out: [String: RememberedConsent] = [:]
        if let users, users.isEmpty { return out }
        for i in night.slots.indices {
            night.slots.with(i) { s in
                guard let consent = s.pointee.order.consent else { return }
                if let users, !users.contains(s.pointee.order.userID) { return }
                let order = s.pointee.order
                if let kept = out[order.userID], kept.saidAt.millis > order.createdAt.millis { return }
                out[order.userID] = RememberedConsent(
                    userID: order.userID, consented: consent == .yes, saidAt: order.createdAt, orderID: order.orderID)
            }
        }
        return out
    }
}
