import HTTPMessages

#if canImport(Glibc)
    import Glibc
#endif

/// How a server listens, how many it serves at once, and the caps on each client.
public struct HTTPServerConfiguration: Sendable {
    public var listen: ListenAddress
    /// Served over TLS (GnuTLS, TLS 1.2 and 1.3) with this certificate and key, else plain HTTP.
    public var tls: TLSCredentials?
    /// libmicrohttpd's worker threads. Each owns its connections and runs their handlers one
    /// at a time, so a handler that waits (on the ledger: an SQLite write or a PostgreSQL round
    /// trip; or hashing a password) holds back the others of its thread. Twice the cores keeps
    /// every core busy while half the threads wait, and bounds the ledger connections the
    /// handlers open (one a thread); at least 4, so that 2 cores still serve 4 at once.
    public var threads: Int = max(4, 2 * sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    /// Most connections open at once (split evenly between the threads); more wait in the
    /// kernel's accept queue.
    public var connectionLimit: Int = 512
    /// Most connections from one IP address. A TLS proxy in front makes every client one
    /// address: raise it there.
    public var perIPConnectionLimit: Int = 128
    /// Bytes each connection may use for its request line, header fields and the answer's
    /// header (libmicrohttpd's memory pool, where it reads them; 64 KiB would do for
    /// `HTTPLimits.standard`'s 8 KiB target and 16 KiB of fields, 128 leaves room). A request
    /// line that does not fit is answered 414 by libmicrohttpd, header fields that do not fit
    /// 431, before `limits` is asked; below that `limits` answers the same statuses.
    public var connectionMemoryLimit: Int = 128 << 10
    /// Seconds a connection may stay silent (before, during or between requests) before it is closed.
    public var connectionTimeoutSeconds: Int = 30
    /// How long `stop()` waits for the requests in flight to be answered.
    public var stopGrace: Duration = .seconds(10)
    /// Caps on each request: target, header fields, cookies, body (1 MiB), forms, JSON.
    public var limits: HTTPLimits = .standard
    /// The answer to a request that cannot be read (the handler is not called); by default its
    /// status and reason as text.
    public var refusal: @Sendable (HTTPRequestError) -> HTTPResponse = HTTPResponse.refusal
    /// Where libmicrohttpd's own messages go (a client that went away, a failed TLS handshake);
    /// nowhere by default.
    public var log: (@Sendable (String) -> Void)?

    public init(listen: ListenAddress, tls: TLSCredentials? = nil) {
        self.listen = listen
        self.tls = tls
    }

    /// Every count is positive and fits libmicrohttpd's `unsigned int`; each thread gets a connection.
    func validate() throws(HTTPServerError) {
        let counts: [(String, Int)] = [
            ("threads", threads), ("connectionLimit", connectionLimit), ("perIPConnectionLimit", perIPConnectionLimit),
            ("connectionMemoryLimit", connectionMemoryLimit), ("connectionTimeoutSeconds", connectionTimeoutSeconds),
        ]
        for (name, value) in counts where value < 1 || UInt32(exactly: value) == nil {
            throw HTTPServerError(.badConfiguration, "\(name) is \(value); it must be from 1 to \(UInt32.max)")
        }
        guard connectionLimit >= threads else {
            throw HTTPServerError(.badConfiguration, "connectionLimit \(connectionLimit) is below threads \(threads)")
        }
        guard stopGrace >= .zero else { throw HTTPServerError(.badConfiguration, "stopGrace is negative") }
    }
}

/// A PEM certificate (chain, the server's first) and its PEM private key, unencrypted.
public struct TLSCredentials: Sendable, Equatable {
    public var certificatePEM: [UInt8]
    public var keyPEM: [UInt8]

    public init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}
