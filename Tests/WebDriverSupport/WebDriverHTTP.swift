import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// JSON over HTTP/1.1 to chromedriver on loopback, one request per connection, waited for:
/// W3C WebDriver's wire format, `{"value": …}` on success and `{"value": {"error", "message",
/// …}}` with a 4xx/5xx status on failure.
///
/// A plain socket, not URLSession: chromedriver writes its headers without a space after the
/// colon (`Content-Length:251`), which FoundationNetworking on Linux rejects ("Failed writing
/// header"). No proxy from the environment is asked, either.
final class WebDriverHTTP {
    private let port: UInt16
    private let timeout: TimeInterval
    /// The largest response read: a screenshot of a large page is a few MiB of base64.
    private static let maximumResponse = 256 << 20

    init(port: Int, timeout: TimeInterval) {
        self.port = UInt16(clamping: port)
        self.timeout = timeout
    }

    /// Sends `body` (none for GET and DELETE; `{}` for a POST without parameters, as W3C wants)
    /// and answers the response's `value`: an object, array, string, number, bool or NSNull.
    func send(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws(WebDriverError) -> Any {
        let what = "\(method) \(path)"
        var payload: [UInt8] = []
        if method == "POST" {
            do {
                payload = [UInt8](try JSONSerialization.data(withJSONObject: body ?? [:]))
            } catch {
                throw WebDriverError("invalid argument", "\(what): not JSON: \(error)")
            }
        }
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n\r\n"
        let (status, data) = try exchange(Array(head.utf8) + payload, what)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let text = String(decoding: data.prefix(2000), as: UTF8.self)
            throw .badResponse("\(what): HTTP \(status), not JSON: \(text)")
        }
        guard let value = (object as? [String: Any])?["value"] else {
            throw .badResponse("\(what): HTTP \(status) without a value")
        }
        guard (200..<300).contains(status) else {
            let failure = value as? [String: Any]
            throw WebDriverError(
                failure?["error"] as? String ?? "unknown error", failure?["message"] as? String ?? "\(value)",
                status: status)
        }
        return value
    }

    /// Connects, writes `request`, reads the response: its status and body.
    private func exchange(_ request: [UInt8], _ what: String) throws(WebDriverError) -> (Int, Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw transport(what, "socket") }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw transport(what, "connect to 127.0.0.1:\(port)") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw transport(what, "send") }
            sent += n
        }
        return try readResponse(fd, what)
    }

    /// Reads the status line and headers, then `Content-Length` bytes of body (or up to the end of
    /// the connection when there is none).
    private func readResponse(_ fd: Int32, _ what: String) throws(WebDriverError) -> (Int, Data) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var head: ResponseHead?
        while true {
            if head == nil, let end = headEnd(received) {
                head = try ResponseHead(received[..<end], what)
                received.removeFirst(end + 4)
            }
            if let length = head?.contentLength, received.count >= length { break }
            guard received.count <= Self.maximumResponse else {
                throw .badResponse("\(what): response over \(Self.maximumResponse) bytes")
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw transport(what, "receive (no answer within \(Int(timeout)) s?)") }
            if n == 0 { break }
            received += chunk.prefix(n)
        }
        guard let head else { throw .badResponse("\(what): the connection closed before the headers ended") }
        if let length = head.contentLength {
            guard received.count >= length else { throw .badResponse("\(what): the body ended early") }
            return (head.status, Data(received.prefix(length)))
        }
        return (head.status, Data(received))
    }

    /// Where `\r\n\r\n` starts, if it has arrived.
    private func headEnd(_ bytes: [UInt8]) -> Int? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= separator.count else { return nil }
        return (0...(bytes.count - separator.count)).first {
            bytes[$0..<($0 + separator.count)].elementsEqual(separator)
        }
    }

    private func transport(_ what: String, _ step: String) -> WebDriverError {
        WebDriverError("transport", "\(what): \(step) failed: \(String(cString: strerror(errno)))")
    }

    /// `HTTP/1.1 200 OK` and the headers this client needs.
    private struct ResponseHead {
        var status: Int
        var contentLength: Int?

        init(_ bytes: ArraySlice<UInt8>, _ what: String) throws(WebDriverError) {
            let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
            let statusLine = lines.first?.split(separator: " ") ?? []
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
                throw .badResponse("\(what): no HTTP status line: \(lines.first ?? "")")
            }
            self.status = status
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if name == "content-length" { contentLength = Int(value) }
                if name == "transfer-encoding" && value.lowercased() != "identity" {
                    throw .badResponse("\(what): Transfer-Encoding \(value) is not read by this client")
                }
            }
        }
    }
}
