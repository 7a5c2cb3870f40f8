import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One keep-alive HTTP/1.1 connection to 127.0.0.1, blocking: the desk's tests and its
/// benchmark talk to `iapscreen desk serve` through it. It reads exactly what the desk sends
/// (`Content-Length`, never chunked), and keeps the cookies it is given.
public final class LoopbackHTTPClient {
    public struct Response {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let port: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    /// Cookies the desk set, sent back on every request.
    public var cookies: [String: String] = [:]

    public init(port: Int) {
        self.port = port
    }

    deinit { if fd >= 0 { close(fd) } }

    private func connectIfNeeded() throws {
        guard fd < 0 else { return }
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(s)
            throw Failure(description: "connect: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // A server that answers before it reads the whole body (413) stops reading: sending
        // the rest must give up rather than wait for ever, and the answer is read anyway.
        var wait = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        fd = s
        buffer = []
    }

    public func request(
        _ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil,
        headers extra: [(String, String)] = []
    ) throws -> Response {
        for attempt in 0..<2 {
            do {
                try connectIfNeeded()
                return try exchange(method, target, body: body, contentType: contentType, extra: extra)
            } catch {
                // The server closed a kept-alive connection: one fresh try.
                if fd >= 0 { close(fd) }
                fd = -1
                if attempt == 1 { throw error }
            }
        }
        throw Failure(description: "unreachable")
    }

    private func exchange(
        _ method: String, _ target: String, body: [UInt8], contentType: String?, extra: [(String, String)]
    ) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if !cookies.isEmpty {
            head += "Cookie: " + cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") + "\r\n"
        }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Refused mid-body: what the server answered is read below.
            guard n > 0 else { break }
            sent += n
        }
        let headerEnd = try readUntilHeaderEnd()
        let headText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line") }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
        while buffer.count < length { try fill() }
        let responseBody = Array(buffer[..<length])
        buffer.removeFirst(length)
        for (name, value) in headers where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";").first ?? ""
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let cookieName = String(pair[..<eq])
            let cookieValue = String(pair[pair.index(after: eq)...])
            if value.contains("Max-Age=0") { cookies[cookieName] = nil } else { cookies[cookieName] = cookieValue }
        }
        if headers.contains(where: { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" }) {
            close(fd)
            fd = -1
        }
        return Response(status: status, headers: headers, body: responseBody)
    }

    private func readUntilHeaderEnd() throws -> Int {
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4)
                where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    return i
                }
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "the connection closed") }
        buffer += chunk[..<n]
    }
}
