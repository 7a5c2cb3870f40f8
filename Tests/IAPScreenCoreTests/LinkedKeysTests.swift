import Testing

@testable import Night

/// Which of the other shards' orders a worker keeps (docs/ledger.md): those that may take one
/// of its own keys, or a key tied to one through a chain of orders that may take several.
@Suite("Linked claim keys")
struct LinkedKeysTests {
    @Test("a key is kept when a chain of several-candidate orders ties it to an own key, in any order of linking")
    func chains() {
        let links = [["b", "c"], ["x", "y"], ["c", "d"], ["a", "b"], ["y", "z"], ["e"]]
        for shift in links.indices {
            var keys = LinkedKeys(own: ["a", "q"])
            for k in links.indices { keys.link(links[(k + shift) % links.count]) }
            let filter = keys.linked()
            for key in ["a", "b", "c", "d", "q"] { #expect(filter.keeps(key), "\(key), links rotated by \(shift)") }
            for key in ["x", "y", "z", "e", "f"] { #expect(!filter.keeps(key), "\(key), links rotated by \(shift)") }
        }
    }

    @Test("without any link only the own keys are kept; an own key given twice counts once")
    func ownAlone() {
        var keys = LinkedKeys(own: ["k1", "k2", "k1"])
        keys.link([])
        let filter = keys.linked()
        #expect(filter.keeps("k1") && filter.keeps("k2") && !filter.keeps("k3"))
        #expect(LinkedKeys(own: []).isOwn("k1") == false)
    }

    @Test("a long chain linked from its far end is kept whole")
    func longChain() {
        var keys = LinkedKeys(own: ["0"])
        for i in (0..<5000).reversed() { keys.link(["\(i + 1)", "\(i)"]) }
        let filter = keys.linked()
        #expect((0...5000).allSatisfy { filter.keeps("\($0)") })
        #expect(!filter.keeps("5001"))
    }
}
