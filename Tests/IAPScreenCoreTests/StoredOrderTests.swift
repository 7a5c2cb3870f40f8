import DumpFormats
import IAPBasics
import Testing

@testable import Night

@Suite("An order as the night keeps it")
struct StoredOrderTests {
    private func row(consumed: Int32?, consent: OrderConsent?) -> OrderRow {
        OrderRow(
            orderID: "ORD-1", userID: "user-1", createdAt: Timestamp(clampingMillis: 1_709_294_400_000), itemID: "gems",
            amount: "4.99", currency: "USD", consumed: consumed.flatMap(ConsumedShare.init(milliunits:)),
            consent: consent, location: SourceLocation(file: "orders.csv", line: 7))
    }

    @Test(
        "its consumed share and consent come back as the row said them",
        arguments: [
            (nil, nil), (0, .yes), (100_000, .no), (65_535, nil), (65_536, .yes), (99_999, .no), (33_333, nil),
        ] as [(Int32?, OrderConsent?)])
    func roundTrip(consumed: Int32?, consent: OrderConsent?) {
        let pool = StringPool()
        let original = row(consumed: consumed, consent: consent)
        let kept = StoredOrder(original, pool: pool).row(pool: pool)
        #expect(kept == original)
    }

    @Test("the two columns take no room of their own: a night of 10^6 orders keeps 88 bytes an order")
    func size() {
        #expect(MemoryLayout<StoredOrder>.stride == 88)
    }

    @Test("a slot of the night (the order, its verdict, where its row starts) is 136 bytes")
    func slotSize() {
        #expect(MemoryLayout<NightLoader.Slot>.stride == 136)
    }
}
