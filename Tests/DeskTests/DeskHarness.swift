import DeskPages
import DeskSecurity
import Foundation
import HTTPMessages
import IAPBasics
import Ledger
import LoopbackHTTP
import PostgresClient
import PostgresTestSupport
import SQLiteClient
import Synchronization
import Testing

@testable import Desk

/// A desk over a SQLite ledger of its own, answered in process (the handler libmicrohttpd
/// calls), on a clock the test moves: what a browser or a program would get for each request.
final class DeskHarness {
    static let password = "correct horse battery staple"
    /// 2026-12-01T00:00:00Z
    static let start: Int64 = 1_795_996_800_000

    let dir: String
    let ledgerPath: String
    let desk: DeskService
    /// The PostgreSQL database of a harness on that backend (nil: SQLite at `ledgerPath`).
    let database: TestDatabase?
    private let open: DeskStorePool.Opener
    private let clock = TestClock()

    init(
        _ backend: DeskBackend = .sqlite, orders: [FlaggedOrderRecord] = DeskHarness.orders,
        users: [(String, DeskRole)] = DeskHarness.users
    ) throws {
        dir = NSTemporaryDirectory() + "desk-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        ledgerPath = dir + "/ledger.sqlite"
        let ledger: any LedgerStore
        switch backend {
        case .sqlite:
            database = nil
            ledger = try SQLiteLedger(path: ledgerPath)
            let path = ledgerPath
            open = { () throws(LedgerError) -> any DeskStore in try SQLiteDeskStore(path: path) }
        case .postgres:
            let db = try TestDatabase()
            database = db
            ledger = try PostgresLedger(uri: db.uri)
            let uri = db.uri
            open = { () throws(LedgerError) -> any DeskStore in try PostgresDeskStore(uri: uri) }
        }
        try ledger.record(
            RunRecord(
                startedAt: Timestamp(clampingMillis: DeskHarness.start - 60_000, hasMilliseconds: false),
                finishedAt: Timestamp(clampingMillis: DeskHarness.start - 30_000, hasMilliseconds: false),
                orders: orders.count, flagged: orders.count, newClaims: [], reported: [], flaggedOrders: orders))
        let store = try open()
        let hash = try PasswordHash.make(password: DeskHarness.password)
        for (name, role) in users {
            _ = try store.addUser(
                DeskUser(
                    name: name, role: role, passwordHash: hash, passwordSetAt: DeskHarness.start - 1,
                    createdAt: DeskHarness.start - 1),
                by: "test")
        }
        guard let assets = DeskAssets.directory() else { throw HarnessFailure("the desk's assets are not built") }
        let clock = self.clock
        desk = DeskService(
            settings: DeskSettings(), pool: DeskStorePool(open: open),
            assets: try DeskAssetFiles(directory: assets), clock: { clock.now.withLock { $0 } })
    }

    deinit {
        try? FileManager.default.removeItem(atPath: dir)
        database?.drop()
    }

    static let users: [(String, DeskRole)] = [("ann", .reviewer), ("ben", .reviewer), ("vic", .viewer), ("lea", .lead)]

    static let orders: [FlaggedOrderRecord] = [
        flagged("ORD-1", severity: 4, rule: "forged-receipt"),
        flagged("ORD-2", severity: 3, rule: "replayed-transaction"),
        flagged("ORD-3", severity: 1, rule: "sandbox-receipt"),
    ]

    static func flagged(_ id: String, severity: Int, rule: String, user: String = "u1") -> FlaggedOrderRecord {
        FlaggedOrderRecord(
            orderID: id, userID: user, platform: "ios", productID: "coins", amount: "4.99", currency: "USD",
            createdAt: "2026-11-30T10:00:00Z", severity: severity, rules: [rule], transactions: ["2000\(id.count)"],
            receipt: #"[["kind","storekit2"]]"#,
            findings: [
                (rule, #"{"rule":"\#(rule)","severity":"high","order_id":"\#(id)","message":"m","evidence":{}}"#)
            ])
    }

    func advance(minutes: Int64) { clock.now.withLock { $0 += minutes * 60_000 } }

    /// The session hashes the ledger keeps, read as they are stored.
    func sessionHashes() throws -> [String] {
        if let database {
            let r = try PostgresConnection(uri: database.uri).query("SELECT id_hash FROM iapscreen.desk_sessions")
            return try (0..<r.rowCount).map { i in try r.text(i, 0) ?? "" }
        }
        let rows = try SQLiteConnection(path: ledgerPath, readOnly: true).prepare("SELECT id_hash FROM desk_sessions")
        var kept: [String] = []
        while try rows.step() { kept.append(rows.text(0) ?? "") }
        return kept
    }

    /// A desk connection of the test's own, to look at (and change) what the desk keeps.
    func store() throws -> any DeskStore { try open() }

    /// One request as a browser sends it: the client's cookies, `Host`, and what is given.
    func send(
        _ method: String, _ target: String, as client: DeskClient? = nil, form: [(String, String)]? = nil,
        json: String? = nil, headers: [(String, String)] = []
    ) throws -> HTTPResponse {
        var fields = [NamedValue("Host", "127.0.0.1:8080")]
        var body: [UInt8] = []
        if let form {
            fields.append(NamedValue("Content-Type", "application/x-www-form-urlencoded"))
            body = Array(
                form.map { "\(DeskHarness.encode($0.0))=\(DeskHarness.encode($0.1))" }.joined(separator: "&").utf8)
        }
        if let json {
            fields.append(NamedValue("Content-Type", "application/json"))
            body = Array(json.utf8)
        }
        if let client, !client.cookies.isEmpty {
            fields.append(
                NamedValue("Cookie", client.cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")))
        }
        fields += headers.map { NamedValue($0.0, $0.1) }
        let response = desk.handle(try HTTPRequest(method: method, target: target, headers: fields, body: body))
        client?.take(response)
        return response
    }

    static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// A client logged in as `name` (through the login form).
    func login(_ name: String, password: String = DeskHarness.password) throws -> DeskClient {
        let client = DeskClient()
        let form = try send("GET", "/login", as: client)
        let csrf = try #require(ResponseFields.hidden("csrf", in: form.text))
        let r = try send(
            "POST", "/login", as: client, form: [("username", name), ("password", password), ("csrf", csrf)])
        guard r.status == 303 else { throw HarnessFailure("login of \(name) answered \(r.status): \(r.text)") }
        let me = try send("GET", "/api/v1/me", as: client)
        client.csrf = try #require(ResponseFields.jsonString("csrf", in: me.text))
        return client
    }
}

/// A browser's cookie jar and the session's CSRF token.
final class DeskClient: @unchecked Sendable {
    var cookies: [String: String] = [:]
    var csrf = ""

    func take(_ r: HTTPResponse) {
        for value in r.headers.pairs.filter({ $0.name.lowercased() == "set-cookie" }).map(\.value) {
            let pair = value.split(separator: ";").first ?? ""
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<eq])
            if value.contains("Max-Age=0") {
                cookies[name] = nil
            } else {
                cookies[name] = String(pair[pair.index(after: eq)...])
            }
        }
    }

    var api: [(String, String)] { [("X-CSRF-Token", csrf)] }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// The desk's clock in a test: moved by the test, read by every request.
final class TestClock: Sendable {
    let now = Mutex<Int64>(DeskHarness.start)
}

/// The two ledgers the desk runs on: SQLite always, PostgreSQL whenever its tests run.
enum DeskBackend: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    static let available: [DeskBackend] = TestServer.runsTests ? [.sqlite, .postgres] : [.sqlite]
}
