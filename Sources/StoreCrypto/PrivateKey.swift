import COpenSSL

/// A private key that signs: generated here (tests, `samples`) or read back from PKCS#8 PEM.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after init, and each signature
/// uses its own context, which OpenSSL 3 allows from several threads at once.
public final class PrivateKey: @unchecked Sendable {
    let handle: OpaquePointer
    public let kind: KeyKind

    /// Takes ownership of `handle`.
    init(owning handle: OpaquePointer) {
        self.handle = handle
        self.kind = KeyKind(of: handle)
    }

    deinit { EVP_PKEY_free(handle) }

    public enum Spec: Sendable, Equatable {
        /// RSA with the given modulus size (1024 for iOS-6-like certificates, else 2048).
        case rsa(bits: Int)
        case ecP256
    }

    /// A fresh key (RSA-2048 takes tens of milliseconds: share keys between tests).
    public static func generate(_ spec: Spec) throws(CryptoError) -> PrivateKey {
        let algorithm: String
        switch spec {
        case .rsa: algorithm = "RSA"
        case .ecP256: algorithm = "EC"
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw CryptoError.openSSL(.operationFailed, "cannot create a \(algorithm) key-generation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot start \(algorithm) key generation")
        }
        switch spec {
        case .rsa(let bits):
            guard let cBits = Int32(exactly: bits), EVP_PKEY_CTX_set_rsa_keygen_bits(context, cBits) == 1 else {
                throw CryptoError.openSSL(.unsupported, "cannot generate an RSA key of \(bits) bits")
            }
        case .ecP256:
            guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
                throw CryptoError.openSSL(.unsupported, "cannot select curve P-256")
            }
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.openSSL(.operationFailed, "\(algorithm) key generation failed")
        }
        return PrivateKey(owning: key)
    }

    /// From PEM: PKCS#8 (`BEGIN PRIVATE KEY`) or a traditional RSA/EC block; encrypted keys are refused.
    public convenience init(pem: String) throws(CryptoError) {
        let bio = try MemoryBIO(reading: Array(pem.utf8))
        guard let key = PEM_read_bio_PrivateKey(bio.handle, nil, refusePassphrase, nil) else {
            throw CryptoError.openSSL(.badKey, "not an unencrypted PEM private key")
        }
        self.init(owning: key)
    }

    /// Unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public func pkcs8PEM() throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        guard PEM_write_bio_PKCS8PrivateKey(bio.handle, handle, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot write the private key as PKCS#8 PEM")
        }
        return bio.text()
    }

    /// The matching public key, on its own.
    public func publicKey() throws(CryptoError) -> PublicKey {
        let der = try DEREncoding.encode("public key") { i2d_PUBKEY(handle, $0) }
        return try PublicKey(derSubjectPublicKeyInfo: der)
    }

    /// RSA PKCS#1 v1.5 over `data` hashed with `digest`.
    public func signRSA(_ data: [UInt8], digest: DigestAlgorithm) throws(CryptoError) -> [UInt8] {
        guard case .rsa = kind else {
            throw CryptoError(.unsupported, "an RSA signature needs an RSA key, not \(kind)")
        }
        return try EVPSignature.sign(data, key: handle, digest: digest)
    }

    /// ES256 (ECDSA P-256 with SHA-256) as JWS carries it: raw `r ‖ s`, 32 bytes each.
    public func signES256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard kind == .ecP256 else {
            throw CryptoError(.unsupported, "an ES256 signature needs an EC P-256 key, not \(kind)")
        }
        let der = try EVPSignature.sign(data, key: handle, digest: .sha256)
        return try ECDSASignatureFormat.raw(fromDER: der)
    }
}
