import HTTPMessages
import HTTPServer
import JSONText
import Synchronization

/// A server on 127.0.0.1 at a port the kernel chooses, sized for tests on two cores: two
/// threads, a 2-second timeout, a 64 KiB body cap.
func startServer(
    _ adjust: (inout HTTPServerConfiguration) throws -> Void = { _ in },
    handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse = echo
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration(listen: try ListenAddress(parsing: "127.0.0.1:0"))
    configuration.threads = 2
    configuration.connectionTimeoutSeconds = 2
    configuration.stopGrace = .seconds(5)
    configuration.limits.maxBodyBytes = 64 << 10
    try adjust(&configuration)
    return try HTTPServer(configuration: configuration, handler: handler)
}

/// Answers with what it was given, as JSON.
@Sendable func echo(_ request: HTTPRequest) -> HTTPResponse {
    func pairs(_ values: NamedValues) -> JSONValue {
        .array(values.pairs.map { .array([.string($0.name), .string($0.value)]) })
    }
    return .json(
        .object(
            JSONObject([
                ("method", .string(request.method)), ("target", .string(request.target)),
                ("path", .array(request.path.map(JSONValue.string))), ("query", pairs(request.query)),
                ("headers", pairs(request.headers)), ("cookies", pairs(request.cookies)),
                ("body", .string(String(decoding: request.body, as: UTF8.self))), ("peer", .string(request.peer)),
            ])))
}

/// Counts the requests a handler was given.
final class Calls: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
