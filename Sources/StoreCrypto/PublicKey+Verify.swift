import COpenSSL

extension PublicKey {
    /// RSA PKCS#1 v1.5 over `data` hashed with `digest` (app receipts, iOS 6 receipts, Google).
    /// A signature from another key, over other bytes, or of the wrong size is `.invalid`.
    public func verifyRSA(signature: [UInt8], over data: [UInt8], digest: DigestAlgorithm) throws(CryptoError)
        -> SignatureVerdict
    {
        guard case .rsa = kind else {
            return .invalid(reason: "key is \(kind), not RSA")
        }
        let ok = try verifyTemplate(digest).verify(signature, over: data)
        return ok ? .valid : .invalid(reason: "bad signature")
    }

    /// ES256 with a raw 64-byte `r ‖ s` signature, as JWS carries it, over `data`.
    public func verifyES256(signature: [UInt8], over data: [UInt8]) throws(CryptoError) -> SignatureVerdict {
        try verifyES256(signature: signature, over: [], then: data)
    }

    /// ES256 over `prefix` followed by `rest`, where `prefix` is likely the same bytes as in
    /// other checks (a JWS header: most of what is hashed), so its digest state is kept.
    public func verifyES256(signature: [UInt8], over prefix: [UInt8], then rest: [UInt8]) throws(CryptoError)
        -> SignatureVerdict
    {
        guard kind == .ecP256 else {
            return .invalid(reason: "key is \(kind), not EC P-256")
        }
        guard signature.count == 2 * ECDSASignatureFormat.coordinateBytes else {
            return .invalid(reason: "ES256 signature is \(signature.count) bytes, not 64 (r ‖ s)")
        }
        if let table = es256Table() {
            guard
                let ok = table.verify(
                    raw: signature, sha256: try SHA256PrefixCache.shared.digest(prefix, then: rest))
            else {
                throw CryptoError.openSSL(.operationFailed, "cannot check an ES256 signature")
            }
            return ok ? .valid : .invalid(reason: "bad signature")
        }
        guard let der = try ECDSASignatureFormat.der(fromRaw: signature) else {
            throw CryptoError(.operationFailed, "a 64-byte ES256 signature could not be re-encoded as DER")
        }
        let ok = try verifyTemplate(.sha256).verify(der, over: prefix + rest)
        return ok ? .valid : .invalid(reason: "bad signature")
    }
}
