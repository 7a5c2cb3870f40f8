import Foundation
import PostgresClient
import Testing

// The test PostgreSQL server that scripts/postgres-test-cluster.sh starts, for every test
// target that needs one: the ledger's tests and the commands' end-to-end tests.

public enum TestServer {
    public static let variable = "IAPSCREEN_TEST_POSTGRES"

    /// A superuser URI of the test server, or nil when none is given.
    public static var uri: String? {
        guard let uri = ProcessInfo.processInfo.environment[variable], !uri.isEmpty else { return nil }
        return uri
    }

    /// The server, or: off CI, this test is skipped saying how to give one; on CI (`CI` set), it fails.
    public static func required() throws -> String {
        if let uri { return uri }
        let message =
            "\(variable) is not set: the PostgreSQL ledger tests are skipped "
            + "(export \(variable)=$(scripts/postgres-test-cluster.sh start) runs them)"
        if !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty { throw TestServerMissing(message: message) }
        try Test.cancel(Comment(rawValue: message))
    }

    /// `uri` with another database, user or password.
    public static func uri(_ base: String, database: String? = nil, user: String? = nil, password: String? = nil) throws
        -> String
    {
        guard var parts = URLComponents(string: base) else { throw TestServerMissing(message: "\(variable) is no URI") }
        if let database { parts.path = "/" + database }
        if let user { parts.user = user }
        if let password { parts.password = password }
        guard let uri = parts.string else { throw TestServerMissing(message: "cannot build a URI from \(base)") }
        return uri
    }
}

public struct TestServerMissing: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A database of its own on the test server, dropped afterwards, so tests run in parallel.
public final class TestDatabase {
    public let name = "ledger_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    public let server: String
    public let uri: String

    public init() throws {
        server = try TestServer.required()
        try PostgresConnection(uri: server).execute("CREATE DATABASE \(name)")
        uri = try TestServer.uri(server, database: name)
    }

    /// Roles `role(password:)` made, dropped after the database.
    private var roles: [String] = []

    deinit { drop() }

    /// Drops it now (its connections closed by the server), then the roles made for it.
    public func drop() {
        try? PostgresConnection(uri: server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        for role in roles { try? PostgresConnection(uri: server).execute("DROP ROLE IF EXISTS \(role)") }
        roles = []
    }

    /// A login role of its own that needs `password` (the test server asks every role but the
    /// superuser for one) and may use this database: for wrong-password tests.
    public func role(password: String) throws -> String {
        let role = "r_" + name
        try sql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'; GRANT ALL ON DATABASE \(name) TO \(role)")
        roles.append(role)
        return role
    }

    /// SQL straight on the database, beside the ledger.
    public func sql(_ sql: String) throws {
        try PostgresConnection(uri: uri).execute(sql)
    }
}
