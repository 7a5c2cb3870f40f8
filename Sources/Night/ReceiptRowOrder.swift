import IAPBasics

/// docs/inputs.md: among several receipts-dump rows of one order, the latest `received_at`
/// wins; without dates, the last row.
package enum ReceiptRowOrder {
    package static func replaces(seen: Bool, old: Timestamp?, new: Timestamp?) -> Bool {
        guard seen else { return true }
        switch (old, new) {
        case (let old?, let new?) where new < old: return false
        case (.some, nil): return false
        default: return true
        }
    }
}
