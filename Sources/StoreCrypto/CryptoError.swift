import COpenSSL

/// Why a cryptographic operation could not be done: a stable code tests compare and a
/// reason people read, carrying OpenSSL's own messages when OpenSSL refused.
/// A signature that simply does not verify is not an error: it is a `SignatureVerdict`.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// Key bytes or text that are not a usable key.
        case badKey = "bad-key"
        /// Certificate bytes or text that are not a usable certificate.
        case badCertificate = "bad-certificate"
        /// An algorithm or key kind this adapter does not offer.
        case unsupported
        /// Key generation, signing, certificate building or hashing failed inside OpenSSL.
        case operationFailed = "operation-failed"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// An error for a failed OpenSSL call: `what` we tried, then OpenSSL's queued messages.
    /// Draining the queue here keeps a later call from reporting this failure as its own.
    static func openSSL(_ code: Code, _ what: String) -> CryptoError {
        let queued = OpenSSLErrorQueue.drain()
        return CryptoError(code, queued.isEmpty ? what : "\(what): \(queued)")
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}

/// OpenSSL's per-thread error queue.
enum OpenSSLErrorQueue {
    /// Every queued message, oldest first, joined by "; "; the queue is left empty.
    static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            let text = buffer.withUnsafeMutableBufferPointer { buf -> String in
                guard let base = buf.baseAddress else { return "" }
                ERR_error_string_n(code, base, buf.count)
                return String(cString: base)
            }
            messages.append(text)
        }
        return messages.joined(separator: "; ")
    }

    /// Forgets queued messages after an expected failure (a signature that does not verify).
    static func clear() {
        ERR_clear_error()
    }
}
