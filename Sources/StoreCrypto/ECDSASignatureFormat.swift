import COpenSSL

/// ES256 signatures: JWS carries raw `r ‖ s` (RFC 7518 §3.4, 32 bytes each for P-256);
/// OpenSSL signs and verifies DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }`.
enum ECDSASignatureFormat {
    static let coordinateBytes = 32

    /// DER from raw; nil when the raw form is not exactly 64 bytes.
    static func der(fromRaw raw: [UInt8]) throws(CryptoError) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes else { return nil }
        guard let signature = ECDSA_SIG_new() else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate an ECDSA signature")
        }
        defer { ECDSA_SIG_free(signature) }
        let halves = raw.withUnsafeBufferPointer { buffer -> (OpaquePointer?, OpaquePointer?) in
            guard let base = buffer.baseAddress else { return (nil, nil) }
            let n = Int32(coordinateBytes)
            return (BN_bin2bn(base, n, nil), BN_bin2bn(base + coordinateBytes, n, nil))
        }
        guard let r = halves.0, let s = halves.1 else {
            BN_free(halves.0)
            BN_free(halves.1)
            throw CryptoError.openSSL(.operationFailed, "cannot read r and s")
        }
        // On success the signature owns r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError.openSSL(.operationFailed, "cannot assemble an ECDSA signature")
        }
        return try DEREncoding.encode("ECDSA signature") { i2d_ECDSA_SIG(signature, $0) }
    }

    /// Raw `r ‖ s` from DER (what OpenSSL produced when signing).
    static func raw(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else {
            throw CryptoError.openSSL(.operationFailed, "OpenSSL produced an unreadable ECDSA signature")
        }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw CryptoError.openSSL(.operationFailed, "ECDSA signature lacks r or s")
        }
        var raw = [UInt8](repeating: 0, count: 2 * coordinateBytes)
        let n = Int32(coordinateBytes)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> (Int32, Int32) in
            guard let base = buffer.baseAddress else { return (-1, -1) }
            return (BN_bn2binpad(r, base, n), BN_bn2binpad(s, base + coordinateBytes, n))
        }
        guard written == (n, n) else {
            throw CryptoError.openSSL(.operationFailed, "ECDSA r or s is longer than 32 bytes")
        }
        return raw
    }
}
