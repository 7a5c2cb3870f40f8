import COpenSSL

/// A `STACK_OF(X509)` holding references to our certificates (each up-referenced),
/// freed with them. The typed `sk_X509_*` helpers are macros, so the generic
/// `OPENSSL_sk_*` calls stand in for them.
final class CertificateStack {
    let handle: OpaquePointer

    init(_ certificates: [X509Certificate]) throws(CryptoError) {
        guard let stack = OPENSSL_sk_new_null() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a certificate list")
        }
        handle = stack
        for certificate in certificates {
            guard X509_up_ref(certificate.handle) == 1 else {
                throw CryptoError.openSSL(.operationFailed, "cannot reference a certificate")
            }
            guard OPENSSL_sk_push(stack, UnsafeRawPointer(certificate.handle)) > 0 else {
                X509_free(certificate.handle)
                throw CryptoError.openSSL(.operationFailed, "cannot list a certificate")
            }
        }
    }

    deinit { OPENSSL_sk_pop_free(handle, freeCertificate) }

    /// The certificates of an owned stack (e.g. `X509_STORE_CTX_get1_chain`), mapped back
    /// to our objects by identity (OpenSSL's chain holds the very handles we passed in);
    /// the stack is freed.
    static func certificates(in ownedStack: OpaquePointer?, matching known: [X509Certificate]) -> [X509Certificate] {
        guard let ownedStack else { return [] }
        defer { OPENSSL_sk_pop_free(ownedStack, freeCertificate) }
        var result: [X509Certificate] = []
        for index in 0..<max(0, OPENSSL_sk_num(ownedStack)) {
            guard let raw = OPENSSL_sk_value(ownedStack, index) else { continue }
            let pointer = OpaquePointer(raw)
            if let match = known.first(where: { $0.handle == pointer }) {
                result.append(match)
            }
        }
        return result
    }
}

private func freeCertificate(_ certificate: UnsafeMutableRawPointer?) {
    X509_free(OpaquePointer(certificate))
}
