import IAPBasics
import StoreCrypto
import Testing

@Suite("Chain verification at a given time")
struct ChainVerificationTests {
    func verify(
        _ leaf: X509Certificate, _ intermediates: [X509Certificate], anchors: [X509Certificate],
        at time: String
    ) throws -> ChainVerdict {
        try TrustStore(anchors: anchors).verify(leaf: leaf, intermediates: intermediates, at: try TestWorld.time(time))
    }

    @Test("a chain is trusted at a time inside every window, leaf first up to the anchor")
    func trustedInsideWindows() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.leaf, [world.intermediate], anchors: [world.root], at: "2021-06-01T00:00:00Z")
        #expect(verdict.isTrusted)
        #expect(verdict.reason == "trusted")
        #expect(verdict.chain == [world.leaf, world.intermediate, world.root])
        #expect(verdict.failingCertificate == nil)
    }

    @Test("the receipt's own copy of the root among the intermediates changes nothing")
    func embeddedRootCopy() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(
            world.leaf, [world.root, world.intermediate], anchors: [world.root], at: "2021-06-01T00:00:00Z")
        #expect(verdict.isTrusted)
    }

    @Test("before the leaf's notBefore the chain is 'certificate is not yet valid'")
    func beforeLeafWindow() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.leaf, [world.intermediate], anchors: [world.root], at: "2019-12-31T23:59:59Z")
        #expect(verdict.outcome == .notYetValid)
        #expect(verdict.reason == "certificate is not yet valid")
        #expect(verdict.failingCertificate == world.leaf)
    }

    @Test("after the leaf's notAfter the chain is 'certificate has expired', to the second")
    func afterLeafWindow() throws {
        let world = try TestWorld.shared.get()
        // OpenSSL counts the notAfter second itself as expired.
        let lastSecond = try verify(world.leaf, [world.intermediate], anchors: [world.root], at: "2021-12-31T23:59:59Z")
        let after = try verify(world.leaf, [world.intermediate], anchors: [world.root], at: "2022-01-01T00:00:01Z")
        #expect(lastSecond.isTrusted)
        #expect(after.outcome == .expired)
        #expect(after.reason == "certificate has expired")
        #expect(after.failingCertificate == world.leaf)
    }

    @Test("an intermediate expired today still passes at a signing time inside its window")
    func expiredIntermediateCheckedAtSigningTime() throws {
        let world = try TestWorld.shared.get()
        let store = try TrustStore(anchors: [world.root])
        let atSigning = try store.verify(
            leaf: world.leaf, intermediates: [world.intermediate],
            at: try TestWorld.time("2021-12-31T00:00:00Z"))
        #expect(atSigning.isTrusted)
        let longAfter = try store.verify(
            leaf: world.leaf, intermediates: [world.intermediate],
            at: try TestWorld.time("2024-01-01T00:00:00Z"))
        #expect(longAfter.outcome == .expired)
    }

    @Test("a chain ending at a root we did not configure is 'untrusted root'")
    func untrustedRoot() throws {
        let world = try TestWorld.shared.get()
        let forged = try verify(
            world.impostorLeaf, [world.impostorRoot], anchors: [world.root], at: "2021-06-01T00:00:00Z")
        #expect(forged.outcome == .untrustedRoot)
        #expect(forged.reason == "untrusted root")
        let noAnchors = try verify(
            world.leaf, [world.intermediate, world.root], anchors: [], at: "2021-06-01T00:00:00Z")
        #expect(noAnchors.outcome == .untrustedRoot)
    }

    @Test("a leaf without its intermediate does not reach the root")
    func missingIntermediate() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.leaf, [], anchors: [world.root], at: "2021-06-01T00:00:00Z")
        #expect(verdict.outcome == .untrustedRoot)
    }

    @Test("an intermediate configured as an anchor is enough (the iTunes Store CA case)")
    func partialChain() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.leaf, [], anchors: [world.intermediate], at: "2021-06-01T00:00:00Z")
        #expect(verdict.isTrusted)
        #expect(verdict.chain.first == world.leaf)
        #expect(verdict.chain.dropFirst().first == world.intermediate)
    }

    @Test("the self-signed Xcode certificate does not chain to our root")
    func xcodeCertificate() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(
            world.xcode, [], anchors: [world.root, world.intermediate], at: "2021-06-01T00:00:00Z")
        #expect(verdict.outcome == .untrustedRoot)
        #expect(!verdict.isTrusted)
    }

    @Test("a leaf re-signed by an impostor under the real root's name is refused")
    func impostorWithSameName() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.impostorLeaf, [], anchors: [world.root], at: "2021-06-01T00:00:00Z")
        #expect(!verdict.isTrusted)
    }

    @Test("an old-style chain, RSA-1024 leaf and SHA-1 certificate signatures, verifies")
    func sha1Chain() throws {
        let world = try TestWorld.shared.get()
        let leafKey = try PrivateKey.generate(.rsa(bits: 1024))
        var builder = CertificateBuilder(
            subject: DistinguishedName(commonName: "Purchase Receipt Certificate"),
            serialNumber: 7, notBefore: try TestWorld.time("2011-01-01T00:00:00Z"),
            notAfter: try TestWorld.time("2013-01-01T00:00:00Z"), isCertificateAuthority: false)
        builder.digest = .sha1
        builder.includesKeyIdentifiers = false
        builder.extraExtensions = [.marker(AppleMarkerOID.legacyReceiptSigning)]
        let leaf = try builder.issued(
            for: leafKey.publicKey(), by: world.intermediate, issuerKey: world.intermediateKey)
        let verdict = try verify(leaf, [], anchors: [world.intermediate], at: "2012-04-30T15:05:55Z")
        #expect(verdict.isTrusted)
    }

    @Test("the marker policy names the certificate that lacks its role OID")
    func markerPolicy() throws {
        let world = try TestWorld.shared.get()
        let policy = AppleMarkerPolicy.receiptSigning
        #expect(policy.violation(in: [world.leaf, world.intermediate, world.root]) == nil)
        #expect(policy.violation(in: [world.intermediate, world.root]) == "leaf lacks receipt-signing OID")
        #expect(policy.violation(in: [world.leaf, world.root]) == "intermediate lacks WWDR OID")
        #expect(policy.violation(in: [world.leaf]) == "chain lacks an intermediate")
        #expect(policy.violation(in: []) == "empty certificate chain")
        #expect(
            AppleMarkerPolicy.legacyReceiptSigning.violation(in: [world.leaf, world.intermediate])
                == "leaf lacks iOS 6 receipt-signing OID")
    }

    @Test("a signature by an anchor itself passes the chain but not the marker policy")
    func anchorAsLeaf() throws {
        let world = try TestWorld.shared.get()
        let verdict = try verify(world.intermediate, [], anchors: [world.intermediate], at: "2021-06-01T00:00:00Z")
        #expect(verdict.isTrusted)
        #expect(verdict.chain == [world.intermediate])
        #expect(AppleMarkerPolicy.receiptSigning.violation(in: verdict.chain) == "leaf lacks receipt-signing OID")
    }

    @Test("one trust store verifies from many tasks at once")
    func concurrentChains() async throws {
        let world = try TestWorld.shared.get()
        let store = try TrustStore(anchors: [world.root])
        let inside = try TestWorld.time("2021-06-01T00:00:00Z")
        let after = try TestWorld.time("2030-01-01T00:00:00Z")
        let outcomes = try await withThrowingTaskGroup(of: [ChainVerdict.Outcome].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var outcomes: [ChainVerdict.Outcome] = []
                    for round in 0..<25 {
                        let time = round.isMultiple(of: 2) ? inside : after
                        outcomes.append(
                            try store.verify(leaf: world.leaf, intermediates: [world.intermediate], at: time).outcome)
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: [ChainVerdict.Outcome]()) { $0 += $1 }
        }
        #expect(outcomes.filter { $0 == .trusted }.count == 8 * 13)
        #expect(outcomes.filter { $0 == .expired }.count == 8 * 12)
    }
}
