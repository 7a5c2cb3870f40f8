import Decompression
import Screening

/// What the claim of one slot reads of the night before it asks the book: gathered ahead of
/// the claims, read only (nothing changes the slots once the night is loaded).
enum ClaimRead: Sendable {
    /// Another shard's order (the claims read it from `others`).
    case otherShard
    /// Not screened (not credited, or no outcome): it claims nothing.
    case notScreened
    /// Several candidate purchases, or rules that waited for the claims: the kept digest.
    case deferred(ReceiptDigestBox)
    /// One candidate purchase, and who claims it.
    case single(ClaimCandidate, Claimant)
    /// Screened without a candidate purchase.
    case nothing

    init(_ i: Int32, _ night: NightLoader) {
        guard i >= 0 else {
            self = .otherShard
            return
        }
        let slots = night.slots
        // Fields are read in place: copying a million slots was most of this loop.
        guard slots.with(Int(i), { $0.pointee.outcomeKind != nil }) else {
            self = .notScreened
            return
        }
        if let box = night.deferred(at: Int(i)) {
            self = .deferred(box)
        } else if let (candidate, claimant) = Self.single(at: i, slots) {
            self = .single(candidate, claimant)
        } else {
            self = .nothing
        }
    }

    /// The slot's one candidate purchase and who claims it, read in one visit of the slot;
    /// nil when it has none.
    private static func single(at i: Int32, _ slots: NightLoader.SlotStore) -> (ClaimCandidate, Claimant)? {
        slots.with(Int(i)) { s in
            guard let candidate = s.pointee.candidate else { return nil }
            let claimant = Claimant(
                orderID: s.pointee.order.orderID, userID: s.pointee.order.userID,
                createdAt: s.pointee.order.createdAt, catalogType: nil, handle: i)
            return (candidate, claimant)
        }
    }
}

/// The claims' reads, in claim order, in chunks made on a thread of their own a couple of
/// chunks ahead of the claims (`ReadAhead`).
final class ClaimReads {
    private static let chunkSize = 4096
    private let ahead: ReadAhead<[(Int32, ClaimRead)]>

    init(_ order: [Int32], _ night: NightLoader) {
        nonisolated(unsafe) let night = night
        let cursor = Cursor()
        ahead = ReadAhead(depth: 2) {
            let start = cursor.next
            guard start < order.count else { return nil }
            let end = min(start + Self.chunkSize, order.count)
            cursor.next = end
            return order[start..<end].map { ($0, ClaimRead($0, night)) }
        }
    }

    /// The next chunk, nil after the last.
    func next() -> [(Int32, ClaimRead)]? {
        do {
            return try ahead.next()
        } catch {
            // The producer only reads the loaded night and throws nothing: an error here is
            // a bug, never claims silently cut short.
            preconditionFailure("the claims' reads failed: \(error)")
        }
    }

    /// Where the producer is: touched by its thread only.
    private final class Cursor: @unchecked Sendable {
        var next = 0
    }
}
