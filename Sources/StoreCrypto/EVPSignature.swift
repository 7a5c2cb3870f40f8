import COpenSSL

/// `EVP_DigestSign` with a fresh context per call, so one key can sign from several
/// threads at once (verifying: `VerifyTemplate`).
enum EVPSignature {
    static func sign(_ data: [UInt8], key: OpaquePointer, digest: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a signing context")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, digest.evpMD, nil, key) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot start signing with \(digest.rawValue)")
        }
        return try data.withUnsafeBufferPointer { input throws(CryptoError) -> [UInt8] in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1, length > 0 else {
                throw CryptoError.openSSL(.operationFailed, "cannot size the signature")
            }
            var signature = [UInt8](repeating: 0, count: length)
            let ok = signature.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, input.baseAddress, input.count)
            }
            guard ok == 1, length <= signature.count else {
                throw CryptoError.openSSL(.operationFailed, "signing failed")
            }
            return Array(signature.prefix(length))
        }
    }
}
