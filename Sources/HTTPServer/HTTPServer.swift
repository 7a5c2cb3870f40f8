import CMicroHTTPD
import HTTPMessages
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server (libmicrohttpd 0.9.75): requests read whole, each handed once to
/// `handler` on one of the worker threads, its answer sent back. Owns the MHD daemon:
/// `stop()` stops it gracefully, `deinit` at once.
///
/// What it answers by itself, without calling the handler (CONTRACT §14, "Hostile requests"):
/// - a request that `HTTPRequest` or `BodyFraming` refuses, with `refusal`: 400 (method,
///   target, path, query, header fields, cookies, Content-Length), 411 (Transfer-Encoding),
///   413 (an announced body over the cap: answered before a byte of it is read, and MHD then
///   closes the connection), 414 (target), 431 (header fields, cookies);
/// - from libmicrohttpd itself, before any of that: 400 for a request line or header line it
///   cannot parse, 505 for an HTTP version other than 1.0 and 1.1, 414 for a request line and
///   431 for header fields that do not fit `connectionMemoryLimit`; 400 or 413 for a
///   Content-Length that is no number or overflows 64 bits (0.9.75 sends that answer's status
///   line and header block twice; the status is right). A first line without a space (no
///   method and target) it closes without an answer;
/// - a connection silent for `connectionTimeoutSeconds` is closed, without an answer.
/// None of it reaches another connection.
public final class HTTPServer: Sendable {
    /// The port it listens on; the one the kernel chose when asked for port 0.
    public let port: Int
    public let configuration: HTTPServerConfiguration
    private let context: ServerContext
    private let running: Mutex<StartedDaemon?>

    /// Starts listening; a failure says why (`HTTPServerError.Code`).
    public init(
        configuration: HTTPServerConfiguration, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(HTTPServerError) {
        try configuration.validate()
        self.configuration = configuration
        context = ServerContext(configuration, handler: handler)
        try BindCheck.check(configuration.listen)
        if let tls = configuration.tls { try TLSCheck.check(tls, context: context) }
        let daemon = try StartedDaemon(configuration, context: context)
        port = Int(iapscreen_mhd_bound_port(daemon.handle))
        running = Mutex(daemon)
    }

    deinit {
        running.withLock { $0.take() }?.stop()
    }

    /// Requests whose request line has come and whose answer is not yet sent.
    public var requestsInFlight: Int { context.inFlight }

    /// Stops gracefully: accepts no more connections (MHD_quiesce_daemon), answers every
    /// request in flight (with `Connection: close`, so keep-alive clients go) and waits until
    /// they are sent, for at most `stopGrace`, then stops the daemon, which closes every
    /// connection left. Waits by looking every 5 ms. Returns the requests cut short (0 when
    /// every answer went out in time). A second call does nothing and returns 0.
    @discardableResult
    public func stop() -> Int {
        guard let daemon = running.withLock({ $0.take() }) else { return 0 }
        context.beginStopping()
        let listening = MHD_quiesce_daemon(daemon.handle)
        let deadline = ContinuousClock.now + configuration.stopGrace
        while context.inFlight > 0 && ContinuousClock.now < deadline { usleep(5_000) }
        let cutShort = context.inFlight
        daemon.stop()
        // MHD_quiesce_daemon hands the listening socket over: closed once no thread can use it.
        if listening >= 0 { close(listening) }
        return cutShort
    }
}
