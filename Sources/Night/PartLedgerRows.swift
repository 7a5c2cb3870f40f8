import IAPBasics
import Ledger
import Screening

/// What a night read in parts leaves its ledger, kept on disk a part at a time: each part's
/// new claims in key order and its users' latest consents in user order, merged into the
/// order one run gives them when the ledger records the night. So recording a big night
/// holds a batch of rows, not the night's.
final class PartLedgerRows {
    private var claims: [PassFile] = []
    private var consents: [PassFile] = []

    /// A part's new claims, in key order, as the screener spooled them (`newClaims`).
    func addClaims(_ file: PassFile) { claims.append(file) }

    /// The latest consent of each user of a part's orders, with the stating order's position.
    func addConsents(of part: NightLoader) throws(PassFile.Failure) {
        var latest: TonightsConsents.Latest = [:]
        TonightsConsents.fold(part, into: &latest)
        let f = try PassFile()
        for (_, said) in latest.sorted(by: { $0.key < $1.key }) {
            try f.put(said.consent)
            try f.put(said.position)
        }
        consents.append(f)
    }

    /// Every part's new claims, smallest key first (a key is taken by one order of the night).
    var newClaims: RunRows<NewClaim> {
        let files = claims
        return SpooledRows.rows { () throws(PassFile.Failure) in
            var merge = try Self.merge(files, key: \NewClaim.key) { (f) throws(PassFile.Failure) in try f.newClaim() }
            return { () throws(PassFile.Failure) in try merge.pop() }
        }
    }

    /// Each user's latest consent over the parts, in user order: as `TonightsConsents` folds
    /// the whole night, the later statement wins, on a tie the later order.
    var latestConsents: RunRows<RememberedConsent> {
        let files = consents
        typealias Said = (consent: RememberedConsent, position: Int32)
        return SpooledRows.rows { () throws(PassFile.Failure) in
            var merge = try Self.merge(files, key: { (s: Said) in s.consent.userID }) {
                (f) throws(PassFile.Failure) -> Said in (try f.rememberedConsent(), try f.int32())
            }
            var pending = try merge.pop()
            return { () throws(PassFile.Failure) in
                guard var latest = pending else { return nil }
                pending = nil
                while let next = try merge.pop() {
                    guard next.consent.userID == latest.consent.userID else {
                        pending = next
                        break
                    }
                    if (next.consent.saidAt.millis, next.position) > (latest.consent.saidAt.millis, latest.position) {
                        latest = next
                    }
                }
                return latest.consent
            }
        }
    }

    /// The files' rows, each file's in `key` order, joined into that order from their starts.
    private static func merge<Row, Key: Comparable>(
        _ files: [PassFile], key: @escaping (Row) -> Key, read: @escaping (PassFile) throws(PassFile.Failure) -> Row
    ) throws(PassFile.Failure) -> KeyedMerge<Row, Key, PassFile.Failure> {
        for f in files { try f.rewind() }
        return try KeyedMerge(runs: files.count, key: key) { (k) throws(PassFile.Failure) in
            files[k].atEnd ? nil : try read(files[k])
        }
    }
}

extension PassFile {
    func put(_ c: NewClaim) throws(Failure) {
        try put(c.key)
        try put(c.claim.orderID)
        try put(c.claim.userID)
        try put(c.claim.createdAt)
        let d = c.details
        for s in [d.productID, d.amount, d.currency, d.purchaseToken, d.platform] { try put(s) }
    }

    func newClaim() throws(Failure) -> NewClaim {
        let key = try string()
        let claim = Claim(orderID: try string(), userID: try string(), createdAt: try timestamp())
        return NewClaim(
            key: key, claim: claim,
            details: ClaimDetails(
                productID: try optionalString(), amount: try optionalString(), currency: try optionalString(),
                purchaseToken: try optionalString(), platform: try optionalString()))
    }

    func put(_ c: RememberedConsent) throws(Failure) {
        try put(c.userID)
        try put(c.consented)
        try put(c.saidAt)
        try put(c.orderID)
        try put(c.position)
    }

    func rememberedConsent() throws(Failure) -> RememberedConsent {
        RememberedConsent(
            userID: try string(), consented: try bool(), saidAt: try timestamp(), orderID: try string(),
            position: try int64())
    }

    func put(_ t: Timestamp) throws(Failure) {
        try put(t.millis)
        try put(t.hasMilliseconds)
    }

    func timestamp() throws(Failure) -> Timestamp {
        let millis = try int64()
        return Timestamp(clampingMillis: millis, hasMilliseconds: try bool())
    }
}
