import COpenSSL

/// A verification context set up once for one key and digest. Each check copies it
/// (`EVP_MD_CTX_copy_ex`) rather than calling `EVP_DigestVerifyInit` again, which in
/// OpenSSL 3 fetches the algorithms and prepares the key every time: a large share of a
/// signature check when a million receipts share a handful of keys.
///
/// `@unchecked Sendable`: the template context is never used to verify, only copied, and
/// copying reads it (reference counts it touches are atomic).
final class VerifyTemplate: @unchecked Sendable {
    private let context: OpaquePointer

    init(key: OpaquePointer, digest: DigestAlgorithm) throws(CryptoError) {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a verification context")
        }
        guard EVP_DigestVerifyInit(context, nil, digest.evpMD, nil, key) == 1 else {
            EVP_MD_CTX_free(context)
            throw CryptoError.openSSL(.badKey, "cannot start verifying with this key and \(digest.rawValue)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// True when the signature verifies; a mismatch is false, not an error.
    func verify(_ signature: [UInt8], over data: [UInt8]) throws(CryptoError) -> Bool {
        guard let copy = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a verification context")
        }
        defer { EVP_MD_CTX_free(copy) }
        guard EVP_MD_CTX_copy_ex(copy, context) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot copy a verification context")
        }
        let result = signature.withUnsafeBufferPointer { sig in
            data.withUnsafeBufferPointer { input in
                EVP_DigestVerify(copy, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        // A bad signature leaves messages on the queue; they describe no failure of ours.
        OpenSSLErrorQueue.clear()
        return result == 1
    }
}
