import Foundation

/// The temporary files a night keeps its spills in: opened in the temporary directory and
/// unlinked at once, so a run that dies leaves nothing behind.
enum UnlinkedFile {
    /// A new file's descriptor, or why there is none (a sentence naming the folder).
    static func create(_ prefix: String, naming what: String) -> Result<Int32, Failure> {
        let path = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UUID().uuidString)"
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            return .failure(
                Failure(
                    description:
                        "cannot create \(what) in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))"
                ))
        }
        unlink(path)
        return .success(fd)
    }

    struct Failure: Error {
        var description: String
    }

    /// Writes all of `bytes` at `offset` of `fd` (a short write goes on where it stopped); the
    /// system's reason when it cannot.
    static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) -> String? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                pwrite(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(offset) + off_t(done))
            }
            guard n > 0 else { return String(cString: strerror(errno)) }
            done += n
        }
        return nil
    }
}
