import COpenSSL

/// What a key is, as far as store signatures care.
public enum KeyKind: Sendable, Equatable, CustomStringConvertible {
    case rsa(bits: Int)
    /// EC on NIST P-256 (prime256v1), the only curve ES256 uses.
    case ecP256
    /// Any other key (another curve, Ed25519, DSA, …), by OpenSSL's name for it.
    case other(String)

    /// Reads the kind of an `EVP_PKEY`.
    init(of key: OpaquePointer) {
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA:
            self = .rsa(bits: Int(EVP_PKEY_get_bits(key)))
        case EVP_PKEY_EC:
            let group = KeyKind.groupName(of: key)
            self = group == "prime256v1" || group == "P-256" ? .ecP256 : .other("EC \(group)")
        default:
            let name = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
            self = .other(name)
        }
    }

    private static func groupName(of key: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        let ok = buffer.withUnsafeMutableBufferPointer {
            EVP_PKEY_get_group_name(key, $0.baseAddress, $0.count, &length)
        }
        guard ok == 1 else {
            OpenSSLErrorQueue.clear()
            return "unknown curve"
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        switch self {
        case .rsa(let bits): return "RSA-\(bits)"
        case .ecP256: return "EC P-256"
        case .other(let name): return name
        }
    }
}
