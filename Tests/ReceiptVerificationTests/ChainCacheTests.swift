import Dispatch
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Synchronization
import Testing

@Suite("Chain cache")
struct ChainCacheTests {
    /// Receipts around every edge of the expiring world's leaf (valid until 2015-01-01T00:00:00Z).
    private func edgeReceipts() throws -> [Receipt] {
        let pki = try VerificationWorld.expiring()
        let times = [
            "2014-12-31T23:59:58Z", "2014-12-31T23:59:59Z", "2015-01-01T00:00:00Z", "2015-01-01T00:00:01Z",
            "2014-06-01T00:00:00Z", "2015-06-01T00:00:00Z", "2009-12-31T23:59:59Z", "2010-01-01T00:00:00Z",
        ]
        return try times.flatMap { time in
            [
                try Make.decode(Make.appReceipt(created: time, signedBy: pki.appReceiptSigner, purchases: 1)),
                try Make.decode(JWSBuilder.transaction(Make.transaction(signed: time), with: pki.jwsSigner)),
            ]
        }
    }

    @Test("the cache gives the answers an uncached check gives, at every validity edge and in any order")
    func sameAnswers() throws {
        let receipts = try edgeReceipts()
        let uncached = try VerificationWorld.verifier(cachesChains: false)
        let expected = receipts.map { uncached.status(of: $0) }
        #expect(expected.contains { $0.verdict == .valid })
        #expect(expected.contains { $0.verdict == .invalid })
        for order in [Array(receipts.indices), receipts.indices.reversed()] {
            let cached = try VerificationWorld.verifier()
            for index in order {
                #expect(cached.status(of: receipts[index]) == expected[index], "receipt \(index)")
            }
        }
    }

    @Test("a receipt made one second before its leaf expired is valid, one second after invalid, in any order")
    func lastSecond() throws {
        let receipts = try edgeReceipts()
        let verifier = try VerificationWorld.verifier()
        #expect(verifier.status(of: receipts[2]).verdict == .valid)  // 2014-12-31T23:59:59Z, app receipt
        #expect(verifier.status(of: receipts[6]).verdict == .invalid)  // 2015-01-01T00:00:01Z
        #expect(verifier.status(of: receipts[2]).verdict == .valid)
    }

    @Test("two threads verifying at once get the same answers")
    func concurrent() throws {
        let pki = try VerificationWorld.ours()
        let good = try Make.decode(Make.appReceipt(created: "2024-06-01T10:00:00Z", signedBy: pki.appReceiptSigner))
        let bad = try Make.decode(
            Make.appReceipt(created: "2024-06-01T10:00:00Z", signedBy: pki.developerReceiptSigner))
        let verifier = try VerificationWorld.verifier()
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let expectValid = index % 2 == 0
            let verdict = verifier.status(of: expectValid ? good : bad).verdict
            if (verdict == .valid) != expectValid { wrong.withLock { $0 += 1 } }
        }
        #expect(wrong.withLock { $0 } == 0)
    }
}
