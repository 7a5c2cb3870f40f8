import COpenSSL

/// Runs an OpenSSL `i2d_*` function twice: once for the length, once into a buffer.
enum DEREncoding {
    static func encode(
        _ what: String,
        _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(CryptoError) -> [UInt8] {
        let length = i2d(nil)
        guard length > 0, let count = Int(exactly: length) else {
            throw CryptoError.openSSL(.operationFailed, "cannot encode the \(what) as DER")
        }
        var out = [UInt8](repeating: 0, count: count)
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else {
            throw CryptoError.openSSL(.operationFailed, "cannot encode the \(what) as DER")
        }
        return out
    }
}
