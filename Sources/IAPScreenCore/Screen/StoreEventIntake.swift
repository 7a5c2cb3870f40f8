import Dispatch
import DumpFormats
import IAPBasics
import ReceiptFormats
import Reconciliation
import Screening
import StoreCrypto
import StoreEvents

/// The night's store-event logs (`--store-events`, CONTRACT §9), read once each, every event
/// counted once however often it was logged, and the App Store ones verified before they
/// are believed. What comes out, in the order it was read: the refunds and reversals to
/// judge, the events not believed (`store-event-invalid`), the lines that are no event
/// (`malformed-record`).
struct StoreEventNight: Sendable {
    enum Item: Sendable {
        /// `key` is empty when the event names only a Google purchase token (`token`): the
        /// claims resolve it, if a purchase of tonight's or the ledger's has that token.
        case refund(StoreRefund, token: String?)
        case invalid(type: String, transaction: String?, location: SourceLocation, reason: String)
        case malformed(UnreadableRecord)
    }

    struct Counts: Sendable, Equatable {
        var read = 0, distinct = 0, refunds = 0, reversals = 0, invalid = 0
        var byType: [String: Int] = [:]
        /// Believed refunds per UTC day (days since 1970-01-01).
        var refundsPerDay: [Int64: Int] = [:]
    }

    var items: [Item] = []
    var counts = Counts()
    /// The App Store charges and refunds believed, for `reconcile` (kept only when it asks).
    var appleTransactions: [AppleTransactionEvent] = []
    /// Each log with its SHA-256 and the events it held (summary.json's inputs).
    var inputs: [InputRecord] = []

    /// Tokens of refunds that name no order id, for the claims to resolve.
    var unresolvedTokens: Set<String> {
        var out: Set<String> = []
        for case .refund(let r, let token?) in items where r.key.isEmpty { out.insert(token) }
        return out
    }
}

struct StoreEventIntake {
    static let option = OptionSpec("--store-events", .many, valueName: "PATH",
                                   help: "Store-event logs: App Store notifications, refund history, Google voided purchases, RTDN (.gz ok).")

    /// The logs `--store-events` names, read for `command`; nil without the flag. A log that
    /// cannot be read is said here and ends the run with exit 3.
    static func read(_ args: ParsedArguments, setup: ScreenSetup, command: String,
                     io: Console) -> Result<StoreEventNight?, ScreenSetup.Stop> {
        let paths = args.many("--store-events")
        guard !paths.isEmpty else { return .success(nil) }
        guard io.allReadable(paths, command: command, consequence: "nothing written, ledger unchanged") else {
            return .failure(ScreenSetup.Stop(status: .unreadableInput))
        }
        let verifier = setup.verifier
        do {
            return .success(try StoreEventIntake(rules: setup.rules, verify: { verifier.verify($0).status }, jobs: setup.jobs,
                                                 limits: .standard).read(paths))
        } catch {
            io.error("iapscreen \(command): cannot read \(error.path): \(error.reason); nothing written, ledger unchanged")
            return .failure(ScreenSetup.Stop(status: .unreadableInput))
        }
    }

    let rules: RulesDirectory
    let verify: @Sendable (Receipt) -> SignatureStatus
    let jobs: Int
    let limits: Limits
    /// `reconcile` compares Apple per transaction where events name one.
    var keepsAppleTransactions = false

    /// Events are verified this many at a time on every core.
    static let batch = 1024

    func read(_ paths: [String]) throws(InputError) -> StoreEventNight {
        var night = StoreEventNight()
        var seen: Set<String> = []
        for path in paths {
            let hasher = try startHash(path)
            let file = try StoreEventFile(.path(path, observer: { chunk in try? hasher.update(chunk) }), limits: limits)
            var pending: [StoreEvent] = []
            var events = 0
            while let parsed = try file.next() {
                if !parsed.problems.isEmpty {
                    // What is pending was read before: it keeps its place.
                    take(pending, into: &night)
                    pending = []
                    for p in parsed.problems { night.items.append(.malformed(p)) }
                }
                for e in parsed.events {
                    events += 1
                    night.counts.read += 1
                    guard seen.insert(e.identity).inserted else { continue }
                    night.counts.distinct += 1
                    night.counts.byType[e.type, default: 0] += 1
                    pending.append(e)
                    if pending.count == Self.batch { take(pending, into: &night); pending = [] }
                }
            }
            take(pending, into: &night)
            night.inputs.append(InputRecord(path: path, sha256: (try? hasher.finalize()).map(Digest.hex) ?? "", records: events))
        }
        return night
    }

    /// Verifies a batch on every core, then keeps what each event says, in order.
    private func take(_ events: [StoreEvent], into night: inout StoreEventNight) {
        guard !events.isEmpty else { return }
        var doubts = [String?](repeating: nil, count: events.count)
        let parts = min(max(jobs, 1), events.count)
        doubts.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var k = part
                while k < events.count {
                    out[k] = doubt(events[k])
                    k += parts
                }
            }
        }
        for (e, doubt) in zip(events, doubts) {
            if let reason = doubt {
                night.counts.invalid += 1
                night.items.append(.invalid(type: e.type, transaction: e.transactionID, location: e.location, reason: reason))
                continue
            }
            if keepsAppleTransactions, e.store == .apple, let txn = e.transactionID {
                switch e.meaning {
                case .charge, .refund:
                    night.appleTransactions.append(AppleTransactionEvent(
                        kind: e.meaning == .charge ? .charge : .refund, transactionID: txn, productID: e.productID,
                        purchaseDate: e.purchaseDate, price: e.price, currency: e.currency))
                case .reversal, .other: break
                }
            }
            guard let refund = refund(e) else { continue }
            if refund.0.kind == .refund {
                night.counts.refunds += 1
                let ms = refund.0.at.millis
                night.counts.refundsPerDay[ms >= 0 ? ms / 86_400_000 : (ms + 1) / 86_400_000 - 1, default: 0] += 1
            } else {
                night.counts.reversals += 1
            }
            night.items.append(.refund(refund.0, token: refund.token))
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

    /// A believed refund or reversal as the judge takes it; nil for any other event.
    private func refund(_ e: StoreEvent) -> (StoreRefund, token: String?)? {
        let kind: StoreRefund.Kind
        switch e.meaning {
        case .refund: kind = .refund
        case .reversal: kind = .reversal
        case .charge, .other: return nil
        }
        guard let at = e.at else { return nil }
        var key = "", transaction = ""
        switch e.store {
        case .apple:
            guard let t = e.transactionID, !t.isEmpty, t != "0" else { return nil }
            (key, transaction) = (t, t)
        case .google:
            if let order = e.transactionID {
                (key, transaction) = ("g:" + order, order)
            } else if let token = e.purchaseToken {
                transaction = token
            } else {
                return nil
            }
        }
        var r = StoreRefund(kind: kind, key: key, transaction: transaction, event: e.type, at: at, location: e.location)
        r.reason = e.reason
        r.source = e.source
        r.revocationType = e.revocationType
        r.revocationPercentage = e.revocationPercentage
        return (r, key.isEmpty ? e.purchaseToken : nil)
    }
}
