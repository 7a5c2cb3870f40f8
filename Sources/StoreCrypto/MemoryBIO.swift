import COpenSSL

/// An in-memory OpenSSL `BIO`: PEM text goes in or comes out through it.
final class MemoryBIO {
    let handle: OpaquePointer

    /// An empty, writable BIO.
    init() throws(CryptoError) {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a memory BIO")
        }
        handle = bio
    }

    /// A BIO reading a copy of `bytes` (the copy outlives any borrowed buffer).
    init(reading bytes: [UInt8]) throws(CryptoError) {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError.openSSL(.operationFailed, "cannot allocate a memory BIO")
        }
        handle = bio
        guard let length = Int32(exactly: bytes.count) else {
            throw CryptoError(.operationFailed, "input of \(bytes.count) bytes is too large for OpenSSL")
        }
        if length > 0 {
            let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, length) }
            guard written == length else {
                throw CryptoError.openSSL(.operationFailed, "cannot fill a memory BIO")
            }
        }
    }

    deinit { BIO_free(handle) }

    /// Everything written so far.
    func contents() -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO).
        let length = BIO_ctrl(handle, BIO_CTRL_INFO, 0, &data)
        guard let data, let count = Int(exactly: length), count > 0 else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    func text() -> String { String(decoding: contents(), as: UTF8.self) }
}

/// Passed to every PEM reader: an encrypted PEM is refused instead of prompting on the terminal.
func refusePassphrase(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 { 0 }
