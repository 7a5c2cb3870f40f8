import COpenSSL

/// SHA-256 of a stream fed in chunks (every input file is hashed as it is read).
///
/// Not `Sendable`: it is mutable state with one owner. Swift's region isolation still
/// lets a hasher made inside a task be used there, or be handed over as a whole.
public final class SHA256Hasher {
    private let context: OpaquePointer

    public init() throws(CryptoError) {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a digest context")
        }
        self.context = context
        guard EVP_DigestInit_ex(context, DigestAlgorithm.sha256.evpMD, nil) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot start a SHA-256 digest")
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ chunk: UnsafeRawBufferPointer) throws(CryptoError) {
        guard chunk.count > 0 else { return }
        guard EVP_DigestUpdate(context, chunk.baseAddress, chunk.count) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "SHA-256 update failed")
        }
    }

    public func update(_ chunk: [UInt8]) throws(CryptoError) {
        let result = chunk.withUnsafeBytes { buffer in
            Result<Void, CryptoError> { () throws(CryptoError) in try update(buffer) }
        }
        try result.get()
    }

    /// The digest of everything fed so far; the hasher then starts over, empty.
    public func finalize() throws(CryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        guard ok == 1, length == 32 else {
            throw CryptoError.openSSL(.operationFailed, "SHA-256 finalisation failed")
        }
        guard EVP_DigestInit_ex(context, DigestAlgorithm.sha256.evpMD, nil) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot restart a SHA-256 digest")
        }
        return digest
    }

    /// `finalize()` as lowercase hex.
    public func finalizeHex() throws(CryptoError) -> String {
        Digest.hex(try finalize())
    }
}
