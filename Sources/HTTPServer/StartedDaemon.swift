import CMicroHTTPD
import HTTPMessages

#if canImport(Glibc)
    import Glibc
#endif

/// A running libmicrohttpd daemon and the C strings it was given (the certificate and key it
/// may read again), freed once it has stopped.
struct StartedDaemon {
    let handle: OpaquePointer
    private let strings: [UnsafeMutablePointer<CChar>]

    /// Worker threads polling with poll(2), each accepting from the one listening socket; an
    /// inter-thread channel (MHD_USE_ITC), which MHD_quiesce_daemon needs; MHD's messages
    /// through `messageLogged`. Not epoll: there MHD_quiesce_daemon races the workers, which
    /// take the listening socket out of their epoll sets themselves, and the loser's
    /// epoll_ctl fails with ENOENT, which libmicrohttpd 0.9.75 answers by aborting the process
    /// ("Failed to remove listen FD from epoll set"; seen once in two test runs here). With
    /// poll a quiesced worker just stops watching the socket. A worker watches at most
    /// `connectionLimit / threads` sockets, where poll costs what epoll does.
    init(_ configuration: HTTPServerConfiguration, context: ServerContext) throws(HTTPServerError) {
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        if configuration.listen.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        var strings: [UnsafeMutablePointer<CChar>] = []
        if let tls = configuration.tls {
            flags |= MHD_USE_TLS.rawValue
            strings = [cString(tls.certificatePEM), cString(tls.keyPEM), strdup(tlsPriorities)].compactMap { $0 }
            guard strings.count == 3 else {
                for s in strings { free(s) }
                throw HTTPServerError(.startFailed, "out of memory")
            }
        }
        let contextAddress = Unmanaged.passUnretained(context).toOpaque()
        // The logger first: MHD logs what comes before it to stderr.
        var options = [
            iapscreen_mhd_logger_option(messageLogged, contextAddress),
            item(.CONNECTION_MEMORY_LIMIT, configuration.connectionMemoryLimit),
            item(.CONNECTION_LIMIT, configuration.connectionLimit),
            item(.PER_IP_CONNECTION_LIMIT, configuration.perIPConnectionLimit),
            item(.CONNECTION_TIMEOUT, configuration.connectionTimeoutSeconds),
            item(.THREAD_POOL_SIZE, configuration.threads),
            iapscreen_mhd_uri_log_option(requestLineArrived, contextAddress),
            iapscreen_mhd_completed_option(requestCompleted, contextAddress),
        ]
        if strings.count == 3 {
            options += [
                item(.HTTPS_MEM_CERT, strings[0]), item(.HTTPS_MEM_KEY, strings[1]),
                item(.HTTPS_PRIORITIES, strings[2]),
            ]
        }
        context.beginStart()
        let started = configuration.listen.withSocketAddress { address, _ in
            options.append(
                MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: address)))
            options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
            return iapscreen_mhd_start(flags, requestAdvanced, contextAddress, options)
        }
        let said = context.endStart()
        guard let started else {
            for s in strings { free(s) }
            throw HTTPServerError(.startFailed, said.isEmpty ? "libmicrohttpd did not start" : said)
        }
        handle = started
        self.strings = strings
    }

    /// Stops the daemon: its threads joined, its connections closed (and their requests
    /// completed), the listening socket closed unless MHD_quiesce_daemon handed it over.
    func stop() {
        MHD_stop_daemon(handle)
        for s in strings { free(s) }
    }
}

/// GnuTLS's defaults without TLS 1.0 and 1.1 (RFC 8996), nor SSL 3.
let tlsPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/// An option with a count (every count was checked to fit an `unsigned int`).
func item(_ option: MHD_OPTION, _ value: Int) -> MHD_OptionItem {
    MHD_OptionItem(option: option, value: value, ptr_value: nil)
}

/// An option with a C string.
func item(_ option: MHD_OPTION, _ value: UnsafeMutablePointer<CChar>) -> MHD_OptionItem {
    MHD_OptionItem(option: option, value: 0, ptr_value: UnsafeMutableRawPointer(value))
}

/// A NUL-terminated copy of `bytes` (malloc'd; nil when out of memory). A PEM file holds no
/// NUL; should one be there, GnuTLS reads up to it and refuses what is left.
func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
    guard let copy = malloc(bytes.count + 1) else { return nil }
    bytes.withUnsafeBytes { source in
        if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: bytes.count) }
    }
    copy.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
    return copy.assumingMemoryBound(to: CChar.self)
}
