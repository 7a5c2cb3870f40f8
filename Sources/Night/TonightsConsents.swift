import DumpFormats
import Ledger

/// Each user's latest consent as tonight's dumps state it (§13's `consent` column): by the
/// stating order's `created_at`, the later order on a tie. One pass over the night's orders;
/// what a refund request asks first, and what the ledger keeps of the night.
enum TonightsConsents {
    /// Each user's latest statement so far, with the stating order's position (for ties).
    typealias Latest = [String: (consent: RememberedConsent, position: Int32)]

    /// `users`, when given, limits the answer to those users (a refund request's need).
    static func latest(in night: NightLoader, of users: Set<String>? = nil) -> [String: RememberedConsent] {
        if let users, users.isEmpty { return [:] }
        var out: Latest = [:]
        fold(night, into: &out, of: users)
        return out.mapValues(\.consent)
    }

    /// Adds the statements of `night`'s orders to `latest`: a night read in parts folds each.
    static func fold(_ night: NightLoader, into latest: inout Latest, of users: Set<String>? = nil) {
        for i in night.slots.indices {
            night.slots.with(i) { s in
                guard let consent = s.pointee.order.consent else { return }
                if let users, !users.contains(s.pointee.order.userID) { return }
                let order = s.pointee.order
                if let kept = latest[order.userID],
                    (kept.consent.saidAt.millis, kept.position) > (order.createdAt.millis, s.pointee.position)
                {
                    return
                }
                latest[order.userID] = (
                    RememberedConsent(
                        userID: order.userID, consented: consent == .yes, saidAt: order.createdAt,
                        orderID: order.orderID, position: night.sharedPosition(Int(s.pointee.position))),
                    s.pointee.position
                )
            }
        }
    }
}
