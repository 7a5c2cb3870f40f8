import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client that writes exactly the bytes a test gives it, hostile ones included, and
/// reads what comes back: no HTTP library between the test and the server.
final class RawClient {
    private let fd: Int32

    /// Connected to 127.0.0.1:`port`; a read waits at most `timeout` seconds.
    init(port: Int, timeout: Int = 5) throws(ClientError) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close here: the object is whole, so deinit closes the socket (twice would close
        // whatever another thread opened under the number meanwhile).
        guard connected == 0 else { throw ClientError("connect: \(errno)") }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false when the server closed or reset the connection first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Up to `count` bytes as they come; empty at the end of the stream, nil on a reset or timeout.
    func receive(_ count: Int = 65536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            return Array(buffer.prefix(n))
        }
    }

    /// Everything until the server closes (or the read times out).
    func receiveAll() -> [UInt8] {
        var all: [UInt8] = []
        while let piece = receive(), !piece.isEmpty { all += piece }
        return all
    }

    /// One response: status line, header fields, and a body of its Content-Length.
    func response() -> RawResponse? {
        var data: [UInt8] = []
        while true {
            if let response = RawResponse(parsing: data) { return response }
            guard let piece = receive(), !piece.isEmpty else { return nil }
            data += piece
        }
    }

    /// Whether the server closes the connection within the read timeout without sending anything.
    func closedSilently() -> Bool {
        receive() == []
    }
}

struct ClientError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An HTTP/1.1 response as the raw client read it.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// A whole response at the start of `data`, or nil while some of it has not come.
    init?(parsing data: [UInt8]) {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == end }) else {
            return nil
        }
        let lines = String(decoding: data[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        self.status = status
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard data.count >= headEnd + 4 + length else { return nil }
        body = Array(data[(headEnd + 4)..<(headEnd + 4 + length)])
    }
}
