import COpenSSL

/// One-shot digests of bytes held in memory.
public enum Digest {
    public static func sha1(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try hash(data, with: .sha1)
    }

    public static func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try hash(data, with: .sha256)
    }

    public static func hash(_ data: [UInt8], with algorithm: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, algorithm.evpMD, nil)
            }
        }
        guard ok == 1, Int(length) == algorithm.byteCount else {
            throw CryptoError.openSSL(.operationFailed, "\(algorithm.rawValue) digest failed")
        }
        return Array(digest.prefix(algorithm.byteCount))
    }

    /// Lowercase hexadecimal, two characters a byte.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
