#if canImport(Glibc)
    import Glibc
#endif

/// Whether `address` can be bound, asked of the kernel with a socket of our own that is
/// closed at once, before libmicrohttpd binds its own: MHD only logs why a bind failed,
/// and a failed start must say which (in use, not this host's, not permitted) as a code.
/// The socket is set as MHD sets its own (SO_REUSEADDR, IPv6 only), so the answers agree;
/// should the address be taken in between, the start fails with MHD's words instead.
enum BindCheck {
    static func check(_ address: ListenAddress) throws(HTTPServerError) {
        let fd = socket(
            address.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(.cannotListen, "\(address): \(systemError(errno))") }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        let status = address.withSocketAddress { bind(fd, $0, $1) }
        guard status == 0 else {
            let code = errno
            let kind: HTTPServerError.Code = code == EADDRINUSE ? .addressInUse : .cannotListen
            throw HTTPServerError(kind, "cannot listen on \(address): \(systemError(code))")
        }
    }
}

/// strerror's words for an errno value.
func systemError(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
