#if canImport(Glibc)
    import Glibc
#endif

/// Where a server listens: `HOST:PORT`, HOST an IPv4 address or `localhost` (127.0.0.1),
/// or `[IPv6]:PORT`; PORT 0 to 65535, 0 for one the kernel chooses. No name is looked up.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address's 4 (IPv4) or 16 (IPv6) bytes, in network order.
    public let addressBytes: [UInt8]
    public let port: UInt16

    public var isIPv6: Bool { addressBytes.count == 16 }

    public init(parsing text: String) throws(HTTPServerError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
                throw HTTPServerError(.badAddress, "\(text) is not [IPv6]:PORT")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            addressBytes = try Self.bytes(of: String(host), family: AF_INET6, count: 16, text)
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw HTTPServerError(.badAddress, "\(text) is not HOST:PORT")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            addressBytes = try Self.bytes(
                of: host == "localhost" ? "127.0.0.1" : String(host), family: AF_INET, count: 4, text)
        }
        let digits = portText.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits, portText.count <= 5, let port = UInt16(portText) else {
            throw HTTPServerError(.badAddress, "\(text): the port is not a number from 0 to 65535")
        }
        self.port = port
    }

    /// Whether only this host can reach it: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        isIPv6 ? addressBytes == [UInt8](repeating: 0, count: 15) + [1] : addressBytes.first == 127
    }

    public var description: String {
        let host = addressText(addressBytes)
        return isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// inet_pton (POSIX): dotted IPv4, or any IPv6 text form, else 0.
    private static func bytes(of host: String, family: Int32, count: Int, _ text: String) throws(HTTPServerError)
        -> [UInt8]
    {
        var bytes = [UInt8](repeating: 0, count: count)
        guard inet_pton(family, host, &bytes) == 1 else {
            throw HTTPServerError(.badAddress, "\(text): \(host) is not an IP address")
        }
        return bytes
    }

    /// The address as a `sockaddr_in` or `sockaddr_in6`, valid during `body`.
    func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if isIPv6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &a.sin6_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        withUnsafeMutableBytes(of: &a.sin_addr) { $0.copyBytes(from: addressBytes) }
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

/// An IPv4 or IPv6 address's bytes as inet_ntop writes them.
func addressText(_ bytes: [UInt8]) -> String {
    let family = bytes.count == 16 ? AF_INET6 : AF_INET
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return "?" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The client's address of a `sockaddr` that libmicrohttpd gave, as text.
func peerText(_ address: UnsafePointer<sockaddr>?) -> String {
    guard let address else { return "" }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
            withUnsafeBytes(of: a.pointee.sin_addr) { addressText(Array($0)) }
        }
    case AF_INET6:
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
            withUnsafeBytes(of: a.pointee.sin6_addr) { addressText(Array($0)) }
        }
    default:
        return ""
    }
}
