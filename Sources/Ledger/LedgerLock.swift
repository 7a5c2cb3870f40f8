#if canImport(Glibc)
import Glibc
#endif

/// One run at a time per ledger: an exclusive `flock` on `<ledger>.lock`, holding the
/// owner's pid so the next run can say who has it. Released when the process ends, even
/// if it crashes.
public final class LedgerLock {
    private let fd: Int32
    public let path: String

    public enum Failure: Error, Sendable {
        /// Another process holds the ledger: its pid when it could be read.
        case held(path: String, pid: String?)
        case cannotOpen(path: String, reason: String)
    }

    public init(ledgerPath: String) throws(Failure) {
        path = ledgerPath + ".lock"
        fd = try LedgerLock.acquire(path)
        let me = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = me.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// Opens and locks the file, or says who holds it. Only a locked descriptor leaves here,
    /// so `deinit` never touches a descriptor it does not own.
    private static func acquire(_ path: String) throws(Failure) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buf = [UInt8](repeating: 0, count: 64)
            let n = pread(fd, &buf, buf.count, 0)
            close(fd)
            let pid = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: " \n") : nil
            throw .held(path: path, pid: pid?.isEmpty == false ? pid : nil)
        }
        return fd
    }

    deinit {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
