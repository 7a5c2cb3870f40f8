/// Why a server did not start: a code tests compare and the reason, in the words of the
/// system or of libmicrohttpd (GnuTLS's for a certificate) where they had any.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The listen address cannot be read (`HOST:PORT`, `[IPv6]:PORT`).
        case badAddress = "bad-address"
        /// Another socket listens there.
        case addressInUse = "address-in-use"
        /// The address cannot be bound for another reason (not this host's, a port below 1024).
        case cannotListen = "cannot-listen"
        /// libmicrohttpd (GnuTLS) refused the certificate or the key.
        case tlsRefused = "tls-refused"
        /// A setting out of range (a limit of 0, fewer connections than threads).
        case badConfiguration = "bad-configuration"
        /// libmicrohttpd did not start for another reason.
        case startFailed = "start-failed"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
