import Consumption
import Decompression
import Dispatch
import DumpFormats
import IAPBasics
import ReceiptFormats
import Reconciliation
import Screening
import StoreCrypto
import StoreEvents

/// The night's store-event logs (`--store-events`, docs/store-events.md), read once each, every event
/// counted once however often it was logged, and the App Store ones verified before they
/// are believed. What comes out, in the order it was read: the refunds and reversals to
/// judge, the events not believed (`store-event-invalid`), the lines that are no event
/// (`malformed-record`).
package struct StoreEventNight: Sendable {
    package enum Item: Sendable {
        /// `key` is empty when the event names only a Google purchase token (`token`): the
        /// claims resolve it, if a purchase of tonight's or the ledger's has that token.
        case refund(StoreRefund, token: String?, identity: EventIdentity)
        case invalid(type: String, transaction: String?, location: SourceLocation, reason: String)
        case malformed(UnreadableRecord)
    }

    package struct Counts: Sendable, Equatable {
        package var read = 0, distinct = 0, refunds = 0, reversals = 0, invalid = 0
        package var byType: [String: Int] = [:]
        /// Believed refunds per UTC day (days since 1970-01-01).
        package var refundsPerDay: [Int64: Int] = [:]
    }

    /// Believed refunds and reversals, packed, in the order read.
    var refunds = NightRefunds()
    /// An event not believed, or a line that is no event.
    package enum Other: Sendable {
        case invalid(type: String, transaction: String?, location: SourceLocation, reason: String)
        case malformed(UnreadableRecord)

        var item: Item {
            switch self {
            case .invalid(let type, let transaction, let location, let reason):
                return .invalid(type: type, transaction: transaction, location: location, reason: reason)
            case .malformed(let m):
                return .malformed(m)
            }
        }
    }

    /// The others, each with how many refunds were read before it.
    var others: [(before: Int, other: Other)] = []

    /// Everything in the order read (refunds unpacked one at a time).
    package var items: Items { Items(night: self) }

    package struct Items: Sequence {
        let night: StoreEventNight

        package struct Iterator: IteratorProtocol {
            let night: StoreEventNight
            var refund = 0, other = 0

            package mutating func next() -> Item? {
                if other < night.others.count, night.others[other].before <= refund {
                    other += 1
                    return night.others[other - 1].other.item
                }
                guard refund < night.refunds.count else { return nil }
                let r = night.refunds[refund]
                refund += 1
                return .refund(r.refund, token: r.token, identity: r.identity)
            }
        }

        package func makeIterator() -> Iterator { Iterator(night: night) }
    }

    package var counts = Counts()
    /// The App Store charges and refunds believed, for `reconcile` (kept only when it asks).
    var appleTransactions: [AppleTransactionEvent] = []
    /// Each log with its SHA-256 and the events it held (summary.json's inputs).
    package var inputs: [InputRecord] = []
    /// Every distinct event believed, in the order read, for the ledger to remember (kept
    /// only when it asks; the type strings are shared).
    var believed: [(identity: EventIdentity, type: String)] = []
    /// The refund requests believed (Apple's CONSUMPTION_REQUEST), each once, in the order read.
    package var requests: [ConsumptionRequest] = []
    /// Distinct refund requests that did not verify or named another app: never answered.
    package var invalidRequests = 0

    /// Tokens of refunds that name no order id, for the claims to resolve.
    var unresolvedTokens: Set<String> { refunds.unresolvedTokens }
}

/// An event's identity as the night remembers it: the first 16 bytes of the SHA-256 of its
/// text — small, the same in every run (so a ledger can keep it too), and no one can make two
/// identities meet.
package struct EventIdentity: Hashable, Sendable {
    let a: UInt64, b: UInt64

    init(_ text: String) {
        guard let d = try? Digest.sha256(Array(text.utf8)), d.count >= 16 else {
            // OpenSSL failing to hash is no input's doing; a keyed hash still tells identities apart.
            var h1 = Hasher()
            var h2 = Hasher()
            h1.combine(UInt8(1))
            h2.combine(UInt8(2))
            h1.combine(text)
            h2.combine(text)
            (a, b) = (UInt64(bitPattern: Int64(h1.finalize())), UInt64(bitPattern: Int64(h2.finalize())))
            return
        }
        a = d[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        b = d[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// 32 hex digits, as the ledger keeps it.
    var hex: String {
        func digits(_ v: UInt64) -> String {
            let h = String(v, radix: 16)
            return String(repeating: "0", count: 16 - h.count) + h
        }
        return digits(a) + digits(b)
    }
}

struct StoreEventIntake {
    /// Logs being read (on a thread of their own when `inBackground`, so that they are read
    /// while the orders are); `finish` waits for them.
    final class Reading: @unchecked Sendable {
        /// Written by the reading thread before it ends, read after `join`.
        private var result: Result<StoreEventNight, InputError>?
        private var thread: JoinedThread?

        init(_ intake: StoreEventIntake, paths: [String], inBackground: Bool) {
            guard inBackground else {
                result = Result { () throws(InputError) in try intake.read(paths) }
                return
            }
            thread = JoinedThread { [self] in
                result = Result { () throws(InputError) in try intake.read(paths) }
            }
        }

        /// Waits for the reading to end, its result unwanted (the night has failed already).
        func abandon() {
            thread?.join()
            thread = nil
        }

        /// The night's events; throws when a log broke off.
        func finish() throws(NightFailure) -> StoreEventNight {
            thread?.join()
            thread = nil
            switch result {
            case .success(let night)?: return night
            case .failure(let error)?: throw .input(error)
            case nil: throw NightFailure(.unreadable, "the store events were not read")
            }
        }
    }

    let rules: RulesDirectory
    let verify: @Sendable (Receipt) -> SignatureStatus
    let jobs: Int
    let limits: Limits
    /// `reconcile` compares Apple per transaction where events name one.
    var keepsAppleTransactions = false
    /// `screen` with a ledger remembers every believed event by its identity.
    var keepsIdentities = false

    /// Lines are parsed and verified this many at a time on every core.
    static let batch = 1024

    func read(_ paths: [String]) throws(InputError) -> StoreEventNight {
        var night = StoreEventNight()
        var seen: Set<EventIdentity> = []
        var invalidRequests: Set<EventIdentity> = []
        var typeNames: [String: String] = [:]
        for path in paths {
            let hasher = try startHash(path)
            let file = try StoreEventFile(.path(path, observer: { chunk in try? hasher.update(chunk) }), limits: limits)
            var units: [StoreEventFile.Unit] = []
            units.reserveCapacity(Self.batch)
            var events = 0
            while let unit = try file.nextUnit() {
                units.append(unit)
                if units.count == Self.batch {
                    events += take(
                        units, into: &night, seen: &seen, invalidRequests: &invalidRequests, typeNames: &typeNames)
                    units.removeAll(keepingCapacity: true)
                }
            }
            events += take(units, into: &night, seen: &seen, invalidRequests: &invalidRequests, typeNames: &typeNames)
            night.inputs.append(
                InputRecord(path: path, sha256: (try? hasher.finalize()).map(Digest.hex) ?? "", records: events))
        }
        return night
    }

    /// What one event comes to, worked out on any thread.
    struct Taken: Sendable {
        var identity: EventIdentity
        var type: String
        var doubt: String?
        var transaction: String?
        var location: SourceLocation
        var refund: (StoreRefund, token: String?)?
        var apple: AppleTransactionEvent?
        var request: ConsumptionRequest?
    }

    /// Parses and verifies a batch on every core, then keeps what it says, in order; the
    /// number of events it held.
    private func take(
        _ units: [StoreEventFile.Unit], into night: inout StoreEventNight, seen: inout Set<EventIdentity>,
        invalidRequests: inout Set<EventIdentity>,
        typeNames: inout [String: String]
    ) -> Int {
        guard !units.isEmpty else { return 0 }
        var results = [(problems: [UnreadableRecord], events: [Taken])?](repeating: nil, count: units.count)
        let parts = min(max(jobs, 1), units.count)
        results.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                // Parsed a few dozen at a time, then verified: their ES256 signatures are
                // inverted together (`ES256Inverses`).
                var k = part
                var group: [(index: Int, parsed: Parsed)] = []
                var signatures: [[UInt8]] = []
                while k < units.count {
                    group.removeAll(keepingCapacity: true)
                    signatures.removeAll(keepingCapacity: true)
                    while k < units.count, group.count < Self.verifiedTogether {
                        let parsed = parse(units[k])
                        if case .events(_, let events) = parsed {
                            for e in events { e.signed?.signed.appendJWSSignatures(to: &signatures) }
                        }
                        group.append((k, parsed))
                        k += parts
                    }
                    ES256Inverses(signatures: signatures).whileChecking {
                        for (index, parsed) in group { out[index] = taken(parsed) }
                    }
                }
            }
        }
        var events = 0
        for case (let problems, let taken)? in results {
            for p in problems { night.others.append((night.refunds.count, .malformed(p))) }
            for t in taken {
                events += 1
                night.counts.read += 1
                let fresh = !seen.contains(t.identity)
                if let reason = t.doubt {
                    // Not believed, so it does not stand for its identity: a forgery logged
                    // first must not make the genuine event a duplicate.
                    if fresh { count(t, &night) }
                    if t.request != nil, invalidRequests.insert(t.identity).inserted { night.invalidRequests += 1 }
                    night.counts.invalid += 1
                    night.others.append(
                        (
                            night.refunds.count,
                            .invalid(type: t.type, transaction: t.transaction, location: t.location, reason: reason)
                        ))
                    continue
                }
                guard fresh else { continue }
                seen.insert(t.identity)
                count(t, &night)
                if keepsIdentities {
                    let type = typeNames[t.type] ?? t.type
                    typeNames[type] = type
                    night.believed.append((t.identity, type))
                }
                if keepsAppleTransactions, let a = t.apple { night.appleTransactions.append(a) }
                if let r = t.request { night.requests.append(r) }
                guard let (r, token) = t.refund else { continue }
                if r.kind == .refund {
                    night.counts.refunds += 1
                    let ms = r.at.millis
                    night.counts.refundsPerDay[ms >= 0 ? ms / 86_400_000 : (ms + 1) / 86_400_000 - 1, default: 0] += 1
                } else {
                    night.counts.reversals += 1
                }
                night.refunds.append(r, token: token, identity: t.identity)
            }
        }
        return events
    }

    private func count(_ t: Taken, _ night: inout StoreEventNight) {
        night.counts.distinct += 1
        night.counts.byType[t.type, default: 0] += 1
    }

    /// Units a thread parses before it verifies their events.
    private static let verifiedTogether = 32

    /// One unit read: a problem, or the events it holds and the problems among them.
    private enum Parsed {
        case problem(UnreadableRecord)
        case events(problems: [UnreadableRecord], [StoreEvent])
    }

    private func parse(_ unit: StoreEventFile.Unit) -> Parsed {
        switch unit {
        case .problem(let p): return .problem(p)
        case .payload(let bytes, let location):
            let parsed = StoreEventParser.parse(bytes, at: location, limits: limits)
            return .events(problems: parsed.problems, parsed.events)
        }
    }

    /// A unit's events verified, each reduced to what the night keeps.
    private func taken(_ parsed: Parsed) -> (problems: [UnreadableRecord], events: [Taken]) {
        switch parsed {
        case .problem(let p): return ([p], [])
        case .events(let problems, let events):
            return (
                problems,
                events.map { e in
                    var apple: AppleTransactionEvent?
                    if keepsAppleTransactions, e.store == .apple, let txn = e.transactionID,
                        e.meaning == .charge || e.meaning == .refund
                    {
                        apple = AppleTransactionEvent(
                            kind: e.meaning == .charge ? .charge : .refund, transactionID: txn,
                            productID: e.productID, purchaseDate: e.purchaseDate, price: e.price,
                            currency: e.currency)
                    }
                    return Taken(
                        identity: EventIdentity(e.identity), type: e.type, doubt: doubt(e),
                        transaction: e.transactionID,
                        location: e.location, refund: refund(e), apple: apple, request: Self.request(e))
                }
            )
        }
    }

    /// Why an event is not believed; nil when it is. Google's are unsigned: our server
    /// fetched them from Google.
    func doubt(_ e: StoreEvent) -> String? {
        guard e.store == .apple, let signed = e.signed else { return nil }
        if let env = e.environment, env == "Xcode" || env == "LocalTesting" {
            return "signed by \(env), whose signatures are never trusted"
        }
        let status = verify(signed)
        switch status.verdict {
        case .valid: break
        case .unchecked: return "no Apple trust anchors in Rules/trust/apple to verify it against"
        default: return "the signature does not verify: \(status.reason)"
        }
        if rules.hasAppsFile, let app = e.appID, !rules.isOurApp(app, platform: .ios) {
            return "it names \(app), which is not one of our apps"
        }
        return nil
    }

    /// A consumption request as `consumption` answers it; nil for any other event.
    static func request(_ e: StoreEvent) -> ConsumptionRequest? {
        guard e.meaning == .consumptionRequest, let txn = e.transactionID, let at = e.at else { return nil }
        return ConsumptionRequest(
            notificationUUID: e.notificationUUID ?? e.identity, transactionID: txn, requestedAt: at,
            originalTransactionID: e.originalTransactionID, productID: e.productID, productType: e.productType,
            reason: e.requestReason, accountToken: e.accountToken, expiresDate: e.expiresDate,
            purchaseDate: e.purchaseDate)
    }

    /// A believed refund or reversal as the judge takes it; nil for any other event.
    private func refund(_ e: StoreEvent) -> (StoreRefund, token: String?)? {
        let kind: StoreRefund.Kind
        switch e.meaning {
        case .refund: kind = .refund
        case .reversal: kind = .reversal
        case .charge, .consumptionRequest, .other: return nil
        }
        guard let at = e.at else { return nil }
        let key: String
        var token: String?
        switch e.store {
        case .apple:
            guard let t = ClaimKey.apple(transactionID: e.transactionID) else { return nil }
            key = t
        case .google:
            if let order = ClaimKey.google(orderID: e.transactionID) {
                key = order
            } else if let t = e.purchaseToken, !t.isEmpty {
                (key, token) = ("", t)
            } else {
                return nil
            }
        }
        var r = StoreRefund(kind: kind, key: key, token: token, event: e.type, at: at, location: e.location)
        r.reason = e.reason
        r.source = e.source
        r.revocationType = e.revocationType
        r.revocationPercentage = e.revocationPercentage
        return (r, token)
    }
}
