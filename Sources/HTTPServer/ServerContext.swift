import HTTPMessages
import Synchronization

/// What libmicrohttpd's callbacks reach through their `void *`: the handler, the caps, and
/// the count of requests in flight that `stop()` waits for. Outlives the daemon
/// (`HTTPServer` stops the daemon before it lets go of it); shared by every worker thread.
final class ServerContext: Sendable {
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let refusal: @Sendable (HTTPRequestError) -> HTTPResponse
    let limits: HTTPLimits
    private let log: (@Sendable (String) -> Void)?
    private let state = Mutex(State())

    private struct State {
        /// Requests whose request line came and whose answer is not yet sent (or given up).
        var inFlight = 0
        var stopping = false
        /// libmicrohttpd's messages while a start is under way: the reason it failed.
        var startMessages: [String]?
    }

    init(_ configuration: HTTPServerConfiguration, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.handler = handler
        refusal = configuration.refusal
        limits = configuration.limits
        log = configuration.log
    }

    func requestStarted() { state.withLock { $0.inFlight += 1 } }
    func requestEnded() { state.withLock { $0.inFlight -= 1 } }
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// From now on every answer closes its connection, so that keep-alive clients go.
    func beginStopping() { state.withLock { $0.stopping = true } }
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Collects libmicrohttpd's messages until `endStart`.
    func beginStart() { state.withLock { $0.startMessages = [] } }

    /// The messages logged since `beginStart`, joined.
    func endStart() -> String {
        state.withLock { state in
            defer { state.startMessages = nil }
            return (state.startMessages ?? []).joined(separator: "; ")
        }
    }

    func record(_ message: String) {
        state.withLock { $0.startMessages?.append(message) }
        log?(message)
    }
}
