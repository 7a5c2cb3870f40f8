import Foundation
import JSONText
import PostgresTestSupport
import SQLiteClient
import Testing

/// `screen` of a night bigger than IAPSCREEN_PART_MB, read and screened in parts with one held
/// at a time (docs/commands.md, "Big nights"): the reports and the ledger of a night read at once.
@Suite("A big night screened in parts", .serialized)
struct NightPartsTests {
    /// IAPSCREEN_PART_MB that cuts the world's dumps into `parts` parts.
    static func partSize(_ world: SampleWorld, parts: Int) throws -> [String: String] {
        try partSize(of: world.orders + [world.receipts], parts: parts)
    }

    /// IAPSCREEN_PART_MB that cuts these dumps into `parts` parts.
    static func partSize(of dumps: [String], parts: Int) throws -> [String: String] {
        var total = 0
        for path in dumps {
            total += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        }
        let megabytes = Double(total) / Double(parts) / 1_048_576 * 1.0001
        return ["IAPSCREEN_PART_MB": String(megabytes), "IAPSCREEN_TIMINGS": "1"]
    }

    /// summary.json without what differs from run to run.
    static func summary(_ s: Scratch, _ out: String) throws -> JSONValue? {
        guard var o = try JSONParser.parse(try s.read(out + "/summary.json")).object else { return nil }
        o = JSONObject(o.members.filter { !["started_at", "finished_at", "orders_per_second"].contains($0.key) })
        return .object(o)
    }

    @Test(
        "two nights on one SQLite ledger, at once and in three parts: the same findings.jsonl, flagged.csv and summary.json, and the same ledger"
    )
    func partsOnALedger() throws {
        let s = try Scratch()
        try Self.twoNights(s, partsLedger: "sqlite:" + s.file("parts.sqlite"))
        try Self.expectSameLedger(s)
    }

    @Test(
        "two nights in three parts on a PostgreSQL ledger: the reports, and the ledger (copied to SQLite), of the same nights at once on SQLite"
    )
    func partsOnPostgres() throws {
        let database = try TestDatabase()
        let s = try Scratch()
        try Self.twoNights(s, partsLedger: database.uri)
        let copy = try Tool.run(["ledger", "copy", "--from", database.uri, "--to", "sqlite:" + s.file("parts.sqlite")])
        #expect(copy.status == 0, "\(copy.stderr)")
        try Self.expectSameLedger(s)
    }

    /// Two nights of the sample world, at once on the SQLite ledger `whole.sqlite` and in three
    /// parts on `partsLedger`: the same findings.jsonl, flagged.csv and summary.json each night.
    static func twoNights(_ s: Scratch, partsLedger: String, storeEvents: Bool = false) throws {
        let world = try SampleWorld.shared.get()
        let environment = try Self.partSize(world, parts: 3)
        for night in ["n1", "n2"] {
            let whole = try Tool.run(
                world.screenArguments(
                    out: s.file("whole-\(night)"), ledger: "sqlite:" + s.file("whole.sqlite"), storeEvents: storeEvents)
                    + ["--quiet"], environment: ["IAPSCREEN_TIMINGS": "1"])
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(!whole.stderr.contains(" parts, "), "\(whole.stderr)")
            let parts = try Tool.run(
                world.screenArguments(out: s.file("parts-\(night)"), ledger: partsLedger, storeEvents: storeEvents)
                    + ["--quiet"], environment: environment)
            #expect(parts.status == 0, "\(parts.stderr)")
            #expect(parts.stderr.contains("timings: in 3 parts, "), "\(parts.stderr)")
            try ShardedRunTests.expectSame(s.file("whole-\(night)"), s.file("parts-\(night)"))
            #expect(try Self.summary(s, "whole-\(night)") == Self.summary(s, "parts-\(night)"))
        }
    }

    /// `whole.sqlite` and `parts.sqlite` hold the same claims, findings, consents and runs.
    static func expectSameLedger(_ s: Scratch, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for query in Self.ledgerQueries {
            let whole = try Self.rows(s.file("whole.sqlite"), query)
            #expect(!whole.isEmpty, "\(query)", sourceLocation: sourceLocation)
            #expect(whole == (try Self.rows(s.file("parts.sqlite"), query)), "\(query)", sourceLocation: sourceLocation)
        }
    }

    /// What a night leaves in the ledger, comparable between two ledgers.
    static let ledgerQueries = [
        "SELECT key, order_id, user_id, created_at, product_id, amount, currency, purchase_token FROM claims ORDER BY key",
        "SELECT order_id, rule FROM reported ORDER BY 1, 2",
        "SELECT user_id, consent, said_at, order_id FROM consents ORDER BY 1",
        "SELECT orders, flagged FROM runs ORDER BY id",
    ]

    @Test("a rule on user.orders, and a night in more parts than it has orders of some platform: the same reports")
    func userOrdersInParts() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        let rules = try world.rulesCountingUserOrders(in: s)
        func arguments(_ out: String) -> [String] {
            ["screen", "--rules", rules, "--orders"] + world.orders
                + ["--receipts", world.receipts, "--out", s.file(out), "--ledger", "none", "--quiet"]
        }
        let whole = try Tool.run(arguments("whole"))
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try s.read("whole/findings.jsonl").contains("\"many-orders\""))
        for n in [2, 7] {
            let parts = try Tool.run(arguments("parts-\(n)"), environment: try Self.partSize(world, parts: n))
            #expect(parts.status == 0, "\(parts.stderr)")
            #expect(parts.stderr.contains("timings: in \(n) parts, "), "\(parts.stderr)")
            try ShardedRunTests.expectSame(s.file("whole"), s.file("parts-\(n)"))
        }
    }

    @Test("a part size that is no positive number is exit 2, and nothing is written")
    func refusals() throws {
        let world = try SampleWorld.shared.get()
        let s = try Scratch()
        for bad in ["0", "-1", "lots", "nan"] {
            let r = try Tool.run(world.screenArguments(out: s.file("bad")), environment: ["IAPSCREEN_PART_MB": bad])
            #expect(r.status == 2 && r.stderr.contains("IAPSCREEN_PART_MB"), "\(bad): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.file("bad")))
    }

    static func rows(_ path: String, _ query: String) throws -> [[String]] {
        let db = try SQLiteConnection(path: path, readOnly: true, creating: false)
        let statement = try db.prepare(query)
        let columns = Int32(query.split(separator: " FROM ")[0].split(separator: ",").count)
        var out: [[String]] = []
        while try statement.step() { out.append((0..<columns).map { statement.text($0) ?? "NULL" }) }
        return out
    }
}
