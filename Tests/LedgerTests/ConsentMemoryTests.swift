import Foundation
import IAPBasics
import PostgresClient
import PostgresTestSupport
import Screening
import Testing

@testable import Ledger

@Suite("The users' consents a ledger keeps (§13), on both backends, and the ledgers from before them")
struct ConsentMemoryTests {
    static func said(_ user: String, _ yes: Bool, _ seconds: Int64, _ order: String) -> RememberedConsent {
        RememberedConsent(userID: user, consented: yes, saidAt: at(seconds), orderID: order)
    }

    @Test(
        "the latest consent said stays across nights: an earlier one replaces nothing, a later or equal one replaces",
        arguments: LedgerBackend.available)
    func latestStays(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        try place.open().record(night(consents: [Self.said("u1", true, 50, "o1"), Self.said("u2", false, 10, "o2")]))
        // A later night reads an older order of u1's (a late export) and a newer one of u2's.
        try place.open().record(night(consents: [Self.said("u1", false, 40, "o0"), Self.said("u2", true, 11, "o3")]))
        try place.open().record(night(consents: [Self.said("u3", false, 5, "o9")]))
        let ledger = try place.open(readOnly: true)
        #expect(
            try ledger.consents(of: ["u1", "u2", "u3", "u4"])
                == [
                    "u1": Self.said("u1", true, 50, "o1"), "u2": Self.said("u2", true, 11, "o3"),
                    "u3": Self.said("u3", false, 5, "o9"),
                ])
        #expect(try ledger.counts().consents == 3)
        // The same time said again on a later night: the later night's word.
        try place.open().record(night(consents: [Self.said("u3", true, 5, "o10")]))
        #expect(try place.open().consents(of: ["u3"])["u3"] == Self.said("u3", true, 5, "o10"))
    }

    @Test(
        "an account token finds its user's consent whatever the case; of two users differing in case, the latest said",
        arguments: LedgerBackend.available)
    func byAccountToken(_ backend: LedgerBackend) throws {
        let place = try LedgerPlace(backend)
        let token = "5B0C3E9E-4A7F-4D55-9A8E-2F1F6A0C1D2E"
        try place.open().record(
            night(consents: [
                Self.said(token.lowercased(), true, 10, "o1"), Self.said("Mixed-Case-User", false, 3, "o2"),
                Self.said("mixed-case-user", true, 7, "o3"),
            ]))
        let ledger = try place.open(readOnly: true)
        let found = try ledger.consents(ofAccountTokens: [token, "MIXED-case-USER", "nobody"])
        #expect(found.keys.sorted() == ["5b0c3e9e-4a7f-4d55-9a8e-2f1f6a0c1d2e", "mixed-case-user"])
        #expect(found[token.lowercased()]?.userID == token.lowercased())
        #expect(found["mixed-case-user"] == Self.said("mixed-case-user", true, 7, "o3"))
        // By user, the id is exact.
        #expect(try ledger.consents(of: [token]).isEmpty)
    }

    @Test(
        "a schema-2 SQLite ledger is read as it is read-only (events, no consents), and migrated to the current schema on write"
    )
    func sqliteSchema2() throws {
        let scratch = try Scratch()
        let path = scratch.path("two.sqlite")
        try rawSQL(
            path,
            "PRAGMA journal_mode=WAL; " + LedgerSchema.version0 + LedgerSchema.migration0to2
                + "INSERT INTO claims(key, order_id, user_id, created_at) VALUES ('1', 'o1', 'u1', 0);"
                + "INSERT INTO store_events VALUES ('e1', 'REFUND', NULL);")
        let before = try bytes(path)
        do {
            let reader = try SQLiteLedger(path: path, readOnly: true)
            #expect(try reader.storedSchemaVersion() == 2)
            #expect(try reader.knownEvents(["e1"]) == ["e1"])
            #expect(try reader.consents(of: ["u1"]).isEmpty)
            #expect(try reader.consents(ofAccountTokens: ["u1"]).isEmpty)
            #expect(try reader.counts().consents == 0 && reader.counts().storeEvents == 1)
        }
        #expect(try bytes(path) == before)
        let ledger = try SQLiteLedger(path: path)
        #expect(try ledger.storedSchemaVersion() == 5)
        #expect(try ledger.knownEvents(["e1"]) == ["e1"])
        try ledger.record(night(consents: [Self.said("u1", true, 1, "o1")]))
        #expect(try ledger.consents(ofAccountTokens: ["U1"])["u1"]?.consented == true)
    }

    @Test(
        "a schema-2 PostgreSQL ledger is read as it is read-only, and migrated to the current schema on write, keeping its rows"
    )
    func postgresSchema2() throws {
        let database = try TestDatabase()
        try PostgresLedger(uri: database.uri).record(night(claims: [("1", claim("o1"))], events: [("e1", "REFUND")]))
        // A ledger as schema 2 left it.
        try database.sql(
            "DROP TABLE iapscreen.consents; \(PostgresDeskTablesDropped.sql) UPDATE iapscreen.schema_version SET version = 2"
        )
        do {
            let reader = try PostgresLedger(uri: database.uri, readOnly: true)
            #expect(try reader.storedSchemaVersion() == 2)
            #expect(try reader.knownEvents(["e1"]) == ["e1"])
            #expect(try reader.consents(of: ["u1"]).isEmpty)
            #expect(try reader.counts().consents == 0 && reader.counts().claims == 1)
        }
        let db = try PostgresConnection(uri: database.uri)
        #expect(try db.query("SELECT to_regclass('iapscreen.consents') IS NULL").bool(0, 0) == true)
        let ledger = try PostgresLedger(uri: database.uri)
        #expect(try ledger.storedSchemaVersion() == 5)
        #expect(try ledger.claims(of: ["1"])["1"]?.orderID == "o1")
        try ledger.record(night(consents: [Self.said("u1", false, 1, "o1")]))
        #expect(try ledger.consents(of: ["u1"])["u1"]?.consented == false)
    }
}
