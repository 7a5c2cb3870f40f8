import Testing

@testable import Night

/// Which of the other shards' orders a worker keeps (docs/ledger.md): those that may take one
/// of its own keys, or a key tied to one through a chain of orders that may take several.
@Suite("Linked claim keys")
struct LinkedKeysTests {
    @Test("a key is linked when a chain of several-candidate orders ties it to an own key, in any order of linking")
    func chains() {
        let links = [["b", "c"], ["x", "y"], ["c", "d"], ["a", "b"], ["y", "z"], ["e"]]
        for shift in links.indices {
            var keys = LinkedKeys(seeds: ["a", "q"])
            for k in links.indices { keys.link(links[(k + shift) % links.count]) }
            #expect(keys.linked() == ["a", "b", "c", "d", "q"], "links rotated by \(shift)")
        }
    }

    @Test("without any link only the own keys are linked; an own key seen twice counts once")
    func seedsAlone() {
        var keys = LinkedKeys(seeds: ["k1", "k2", "k1"])
        keys.link([])
        #expect(keys.linked() == ["k1", "k2"])
    }

    @Test("a long chain linked from its far end is found whole")
    func longChain() {
        var keys = LinkedKeys(seeds: ["0"])
        for i in (0..<5000).reversed() { keys.link(["\(i + 1)", "\(i)"]) }
        #expect(keys.linked().count == 5001)
    }
}
