import IAPBasics
import Testing

@testable import Screening

/// The one-candidate `select` (what most orders go through) against the list form, on the
/// same sequence of claims: a free key, the same order again, a replay by another user, a
/// restore of the holder's own non-consumable, family sharing, a purchase without a key,
/// claimants kept by the book and claimants named by a handle.
@Suite("Claims with one candidate purchase")
struct ClaimBookTests {
    static func candidate(_ key: String?, nonConsumable: Bool? = false, familyShared: Bool = false) -> ClaimCandidate {
        var c = ClaimCandidate.empty
        c.key = key
        c.purchaseDate = Timestamp(clampingMillis: 1_000)
        c.nonConsumable = nonConsumable
        c.familyShared = familyShared
        return c
    }

    static func claimant(_ order: String, user: String, handle: Int32?) -> Claimant {
        Claimant(
            orderID: order, userID: user, createdAt: Timestamp(clampingMillis: 2_000), catalogType: nil, handle: handle)
    }

    /// (claimant, candidate) in claim order; handles index into the list.
    static let sequence: [(Claimant, ClaimCandidate)] = [
        (claimant("A", user: "u1", handle: 0), candidate("ios:1")),
        (claimant("A", user: "u1", handle: 0), candidate("ios:1")),
        (claimant("B", user: "u2", handle: 2), candidate("ios:1")),
        (claimant("C", user: "u3", handle: nil), candidate("ios:2", nonConsumable: true)),
        (claimant("D", user: "u3", handle: nil), candidate("ios:2", nonConsumable: true)),
        (claimant("E", user: "u4", handle: 5), candidate("ios:2", nonConsumable: nil)),
        (claimant("F", user: "u5", handle: 6), candidate("ios:2", familyShared: true)),
        (claimant("G", user: "u6", handle: 7), candidate(nil)),
        (claimant("H", user: "u7", handle: nil), candidate("ios:3")),
        (claimant("I", user: "u8", handle: 9), candidate("ios:3")),
    ]

    static func book() -> ClaimBook {
        ClaimBook(claimOf: { h in
            let c = sequence[Int(h)].0
            return Claim(orderID: c.orderID, userID: c.userID, createdAt: c.createdAt)
        })
    }

    @Test("the same selections as the list form, and the same holders after them")
    func sameAsList() {
        var single = Self.book()
        var listed = Self.book()
        var got: [Selection] = []
        for (claimant, candidate) in Self.sequence {
            let one = single.select(for: claimant, candidate: candidate)
            #expect(one == listed.select(for: claimant, candidates: [candidate]), "\(claimant.orderID)")
            got.append(one)
        }
        for key in ["ios:1", "ios:2", "ios:3"] {
            #expect(single.taker(of: key)?.claim == listed.taker(of: key)?.claim)
            #expect(single.taker(of: key)?.handle == listed.taker(of: key)?.handle)
        }
        let a = Claim(orderID: "A", userID: "u1", createdAt: Timestamp(clampingMillis: 2_000))
        let c = Claim(orderID: "C", userID: "u3", createdAt: Timestamp(clampingMillis: 2_000))
        let h = Claim(orderID: "H", userID: "u7", createdAt: Timestamp(clampingMillis: 2_000))
        #expect(
            got == [
                .picked(0), .picked(0), .replayOf(candidate: 0, original: a, key: "ios:1"), .picked(0),
                .restore(candidate: 0, original: c), .replayOf(candidate: 0, original: c, key: "ios:2"), .picked(0),
                .picked(0), .picked(0), .replayOf(candidate: 0, original: h, key: "ios:3"),
            ])
    }
}
