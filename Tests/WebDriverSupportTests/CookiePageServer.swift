import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP server for the cookie tests (file:// pages have no cookies): every request is
/// answered with a page that shows the `Cookie` header it came with, and sets `setCookie`. Each
/// connection has a thread of its own, so a connection Chromium opens ahead and leaves silent
/// holds up nothing.
final class CookiePageServer {
    let port: Int
    private let listener: Int32
    private var stopped = false

    init(setCookie: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerFailure(step: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0 && listen(fd, 16) == 0
            }
        }
        guard listening else {
            close(fd)
            throw ServerFailure(step: "bind and listen")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 && errno == EINTR { continue }
                guard connection >= 0 else {  // stopped: this thread owns the closing
                    close(fd)
                    return
                }
                Thread.detachNewThread { Self.answer(connection, setCookie: setCookie) }
            }
        }
    }

    deinit { stop() }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// Stops accepting: the accepting thread's `accept` fails, and it closes the socket and ends.
    func stop() {
        guard !stopped else { return }
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private static func answer(_ connection: Int32, setCookie: String) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while request.count < 65536, !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            request += chunk.prefix(n)
        }
        let lines = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
        let cookie = lines.first { $0.lowercased().hasPrefix("cookie:") }?.dropFirst(7) ?? ""
        let escaped = cookie.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
        let body = Array("<!doctype html><title>Cookies</title><p id=\"cookie\">\(escaped)</p>".utf8)
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Set-Cookie: \(setCookie)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + body
        _ = response.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    struct ServerFailure: Error {
        var step: String
    }
}
