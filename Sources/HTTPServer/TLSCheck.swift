import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// Whether libmicrohttpd takes a certificate and key, asked of a daemon that listens on
/// nothing and runs no thread (MHD_USE_NO_LISTEN_SOCKET, external polling), stopped at once.
/// MHD_start_daemon loads them (MHD_TLS_init: gnutls_certificate_set_x509_key_mem2) after it
/// has bound its socket and reports a refusal only by its log; asked alone first, a refusal
/// is told apart from every other failure as `tlsRefused`, with GnuTLS's words.
enum TLSCheck {
    static func check(_ tls: TLSCredentials, context: ServerContext) throws(HTTPServerError) {
        guard !tls.certificatePEM.isEmpty, !tls.keyPEM.isEmpty else {
            throw HTTPServerError(.tlsRefused, "the certificate or the key is empty")
        }
        let strings = [cString(tls.certificatePEM), cString(tls.keyPEM), strdup(tlsPriorities)].compactMap { $0 }
        defer { for s in strings { free(s) } }
        guard strings.count == 3 else { throw HTTPServerError(.startFailed, "out of memory") }
        let contextAddress = Unmanaged.passUnretained(context).toOpaque()
        let options = [
            iapscreen_mhd_logger_option(messageLogged, contextAddress),
            item(.HTTPS_MEM_CERT, strings[0]), item(.HTTPS_MEM_KEY, strings[1]), item(.HTTPS_PRIORITIES, strings[2]),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        context.beginStart()
        let flags = MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_TLS.rawValue | MHD_USE_ERROR_LOG.rawValue
        let probe = iapscreen_mhd_start(flags, requestAdvanced, contextAddress, options)
        let said = context.endStart()
        guard let probe else {
            throw HTTPServerError(.tlsRefused, said.isEmpty ? "libmicrohttpd refused the certificate or key" : said)
        }
        MHD_stop_daemon(probe)
    }
}
