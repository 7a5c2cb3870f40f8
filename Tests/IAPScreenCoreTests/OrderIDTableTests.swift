import Testing

@testable import Night

@Suite("The order-id table of a night being read")
struct OrderIDTableTests {
    @Test("ids seen again find their first slot, new ones take theirs, unknown ones none, across many doublings")
    func sameAsADictionary() {
        var table = OrderIDTable()
        var ids: [String] = []
        var reference: [String: Int32] = [:]
        var generator = SystemRandomNumberGenerator()
        for n in 0..<20_000 {
            // Every fifth row names an order seen before; ids of every length, some sharing prefixes.
            let id =
                n % 5 == 4 && !ids.isEmpty
                ? ids[Int.random(in: 0..<ids.count, using: &generator)]
                : "ORD-\(n)" + String(repeating: "x", count: n % 23)
            let fresh = Int32(ids.count)
            let got = table.slot(of: id, insertingIfAbsent: fresh) { ids[Int($0)] }
            let expected = reference[id] ?? fresh
            #expect(got == expected)
            if reference[id] == nil {
                reference[id] = fresh
                ids.append(id)
            }
        }
        for (id, slot) in reference {
            #expect(table.slot(of: id) { ids[Int($0)] } == slot)
        }
        #expect(table.slot(of: "ORD-none") { ids[Int($0)] } == nil)
        #expect(OrderIDTable().slot(of: "ORD-1") { _ in "" } == nil)
    }
}
