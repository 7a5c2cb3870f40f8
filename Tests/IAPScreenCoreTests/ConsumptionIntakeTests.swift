import Foundation
import IAPBasics
import ReceiptBuilder
import Screening
import Testing

@testable import Night

@Suite("Refund requests in the store-event logs: believed once each, never when forged or foreign")
struct ConsumptionIntakeTests {
    static func request(uuid: String, txn: String, bundle: String = StoreEventFixtures.bundle, signer: TestPKI) throws
        -> String
    {
        try StoreEventFixtures.consumptionRequest(uuid: uuid, txn: txn, bundle: bundle, signer: signer)
    }

    @Test("a request logged twice is one; one signed by another key, or of another app, is only counted invalid")
    func intake() throws {
        let pki = try TestPKI()
        let stranger = try TestPKI()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("consumption-intake-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rulesDir = dir.appendingPathComponent("Rules")
        try pki.writeTrustDirectory(into: rulesDir, googlePackageNames: [])
        try "platform,app_id\nios,\(StoreEventFixtures.bundle)\n".write(
            to: rulesDir.appendingPathComponent("apps.csv"), atomically: true, encoding: .utf8)
        let genuine = try Self.request(uuid: "req-1", txn: "2000000000000401", signer: pki)
        let lines = [
            genuine, genuine,
            try Self.request(uuid: "req-2", txn: "2000000000000402", signer: stranger),
            try Self.request(uuid: "req-3", txn: "2000000000000403", bundle: "com.other.app", signer: pki),
            try StoreEventFixtures.notification(
                "REFUND", uuid: "ref-1", txn: "2000000000000404", revoked: "2024-03-04T09:00:00Z", reason: 0,
                signedDate: "2024-03-04T09:00:00Z", signer: pki),
        ]
        let log = dir.appendingPathComponent("events.jsonl")
        try lines.map { "{\"signedPayload\":\"\($0)\"}" }.joined(separator: "\n").write(
            to: log, atomically: true, encoding: .utf8)
        let rules = try NightRules(try RulesDirectory.load(rulesDir.path).get(), defaultProduction: true)
        let night = try rules.storeEvents([log.path], jobs: 2, remembering: false).finish()
        #expect(night.requests.map(\.notificationUUID) == ["req-1"])
        let r = try #require(night.requests.first)
        #expect(r.transactionID == "2000000000000401")
        #expect(r.reason == "UNSATISFIED_WITH_PURCHASE")
        #expect(r.requestedAt == StoreEventFixtures.t("2024-03-04T08:00:00Z"))
        #expect(r.answerBy == StoreEventFixtures.t("2024-03-04T20:00:00Z"))
        #expect(night.invalidRequests == 2)
        #expect(night.counts.byType["CONSUMPTION_REQUEST"] == 3)
        #expect(night.refunds.count == 1, "the refund beside them is judged as before")
    }
}
